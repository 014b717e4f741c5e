package app

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/gantry-dev/gantry/internal/commands"
	"github.com/gantry-dev/gantry/internal/face"
	"github.com/gantry-dev/gantry/internal/llm"
	"github.com/gantry-dev/gantry/internal/llm/scripted"
	"github.com/gantry-dev/gantry/internal/tools/skill"
)

// writeTestPlugin writes a plugin in the shape of those of Anthropic's claude-code
// repository, with one part of each kind: a command, an agent, a skill, a hook and
// a stdio MCP server (the echo server, in the plugin's bin folder), the last two
// reaching the plugin's files through ${CLAUDE_PLUGIN_ROOT}.
func writeTestPlugin(t *testing.T) string {
	t.Helper()
	root := filepath.Join(t.TempDir(), "demo-plugin")
	echo := echoServer(t)
	files := map[string]string{
		".claude-plugin/plugin.json": `{"name": "demo", "version": "1.2.0", "description": "A demo plugin", "author": {"name": "Tester"}}`,
		"commands/hello.md":          "---\ndescription: Say hello\nargument-hint: NAME\n---\nSay hello to $ARGUMENTS.\n",
		"agents/helper.md":           "---\nname: helper\ndescription: Helps with demos\ntools: Read\n---\nYou help.\n",
		"skills/greet/SKILL.md":      "---\nname: greet\ndescription: Greets politely\n---\nGreet from ${CLAUDE_SKILL_DIR}.\n",
		"hooks/hooks.json": `{"description": "demo hooks", "hooks": {"PreToolUse": [{"matcher": "Bash", "hooks": [
			{"type": "command", "command": "cat > ${CLAUDE_PLUGIN_ROOT}/hook-input.json", "timeout": 10}]}]}}`,
		".mcp.json": `{"mcpServers": {"tools": {"command": "${CLAUDE_PLUGIN_ROOT}/bin/echoserver"}}}`,
	}
	for name, body := range files {
		p := filepath.Join(root, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.MkdirAll(filepath.Join(root, "bin"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Rename(echo, filepath.Join(root, "bin", "echoserver")); err != nil {
		t.Fatal(err)
	}
	return root
}

// A plugin enabled by the project's config.yaml, in a trusted folder, through the
// real App: /demo:hello runs its command, read_skill finds demo:greet, its MCP server
// answers as mcp__tools__echo, its hook sees the bash call, the agent tool offers
// demo:helper, and /plugin's lines and doctor name it.
func TestPluginPartsWorkInASession(t *testing.T) {
	commandHomes(t)
	plug := writeTestPlugin(t)
	dir := project(t, "plugins:\n  - "+plug+"\n", map[string]string{})
	var firstPrompt string
	p := scripted.New(
		scripted.Step{Func: func(req llm.Request) scripted.Step {
			firstPrompt = userText(req)
			return scripted.Step{Calls: []scripted.Call{
				{ID: "skill", Name: "read_skill", Input: `{"name":"demo:greet"}`},
				{ID: "mcp", Name: "mcp__tools__echo", Input: `{"text":"from the plugin"}`},
				{ID: "bash", Name: "bash", Input: `{"command":"echo hi"}`},
			}}
		}},
		scripted.Step{Text: "done"},
	)
	var n notices
	a, err := newStarted(Options{Cwd: dir, LLM: p, PermissionMode: "yolo"}, n.sink, face.NoHuman{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { a.Close() })

	cmds := a.Commands()
	i := slices.IndexFunc(cmds, func(c commands.Command) bool { return c.Name == "demo:hello" })
	if i < 0 || cmds[i].Description != "Say hello (plugin demo)" {
		t.Fatalf("commands %+v", cmds)
	}
	runTyped(t, a, "/demo:hello WORLD")
	if !strings.HasPrefix(firstPrompt, "Say hello to WORLD.") {
		t.Errorf("the model got %q", firstPrompt)
	}
	if got, isErr := resultOf(t, p, "skill"); isErr || !strings.Contains(got, "Greet from "+filepath.Join(plug, "skills", "greet")) {
		t.Errorf("read_skill demo:greet: %q (error %v)", got, isErr)
	}
	if got, isErr := resultOf(t, p, "mcp"); isErr || !strings.Contains(got, "from the plugin") {
		t.Errorf("the plugin's MCP server: %q (error %v)", got, isErr)
	}
	if got, isErr := resultOf(t, p, "bash"); isErr || !strings.Contains(got, "hi") {
		t.Errorf("bash: %q (error %v)", got, isErr)
	}
	input, err := os.ReadFile(filepath.Join(plug, "hook-input.json"))
	if err != nil || !strings.Contains(string(input), `"tool_name":"Bash"`) {
		t.Errorf("the plugin's hook did not see the bash call: %q, %v", input, err)
	}
	if defs := a.Agents(); !slices.ContainsFunc(defs, func(d AgentDef) bool { return d.Name == "demo:helper" && d.Source == "plugin demo" }) {
		t.Errorf("agents %+v", defs)
	}
	if lines := PluginLines(a.cfg); len(lines) != 1 || lines[0] != "demo 1.2.0 (project): "+plug+" — A demo plugin" {
		t.Errorf("plugin lines %q", lines)
	}
	rows := pluginRows(a.cfg)
	if len(rows) != 2 || !strings.Contains(rows[1].Value, "1 command folder(s), 1 agent folder(s), 1 skill folder(s), 1 hook(s), 1 MCP server(s)") {
		t.Errorf("doctor rows %+v", rows)
	}
}

// A plugin the project enables is held back in a folder not trusted (the trust
// question names it), and offered once a "yes" trusts the folder: its commands,
// agents and skills.
func TestProjectPluginNeedsATrustedFolder(t *testing.T) {
	commandHomes(t)
	plug := writeTestPlugin(t)
	dir := project(t, "plugins: ["+plug+"]\n", map[string]string{})
	if err := os.WriteFile(filepath.Join(os.Getenv("GANTRY_CONFIG_DIR"), "config.yaml"), nil, 0o644); err != nil {
		t.Fatal(err)
	}
	has := func(a *App) bool {
		return slices.ContainsFunc(a.Commands(), func(c commands.Command) bool { return c.Name == "demo:hello" }) &&
			slices.ContainsFunc(a.Agents(), func(d AgentDef) bool { return d.Name == "demo:helper" }) &&
			slices.ContainsFunc(a.Skills(), func(s skill.Skill) bool { return s.Name == "demo:greet" })
	}
	a := open(t, Options{Cwd: dir, LLM: scripted.New(scripted.Step{Text: "hi"})})
	if tr := a.FolderTrust(); tr.Trusted() || !slices.ContainsFunc(tr.Held.Programs, func(s string) bool { return strings.Contains(s, plug) }) {
		t.Fatalf("the trust does not hold the plugin: %+v", tr)
	}
	if has(a) || len(a.Plugins()) != 0 {
		t.Errorf("an untrusted folder offers the project's plugin: %+v", a.Plugins())
	}
	b, _ := sessionIn(t, Options{Cwd: dir}, &trustAsker{yes: true})
	if !has(b) || len(b.Plugins()) != 1 {
		t.Errorf("after a yes the plugin is not offered: %+v", b.Plugins())
	}
}

// gantry plugin add records a folder for the user and clones a git URL (a local
// file:// repository) into the user's plugins folder with git through the door; list
// shows both, and remove takes them out (deleting the clone).
func TestPluginAddListRemove(t *testing.T) {
	commandHomes(t)
	dir := project(t, "", map[string]string{})
	plug := writeTestPlugin(t)
	p, err := AddPlugin(context.Background(), dir, plug, false)
	if err != nil || p.Name != "demo" {
		t.Fatalf("add %+v, %v", p, err)
	}

	repo := filepath.Join(t.TempDir(), "other.git")
	src := filepath.Join(t.TempDir(), "other")
	if err := os.MkdirAll(filepath.Join(src, ".claude-plugin"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(src, ".claude-plugin", "plugin.json"), []byte(`{"name": "other", "version": "0.1.0"}`), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, args := range [][]string{{"init", "-q", src}, {"-C", src, "add", "."}, {"-C", src, "-c", "user.name=t", "-c", "user.email=t@t", "commit", "-qm", "plugin"}, {"clone", "-q", "--bare", src, repo}} {
		if out, err := exec.Command("git", args...).CombinedOutput(); err != nil {
			t.Fatalf("git %v: %v %s", args, err, out)
		}
	}
	q, err := AddPlugin(context.Background(), dir, "file://"+repo, true)
	if err != nil || q.Name != "other" || q.Root != filepath.Join(PluginsDir(), "other") {
		t.Fatalf("add from git %+v, %v", q, err)
	}
	if _, err := AddPlugin(context.Background(), dir, "file://"+repo, true); err == nil || !strings.Contains(err.Error(), "exists already") {
		t.Errorf("a second clone: %v", err)
	}
	lines, err := ListPlugins(dir)
	if err != nil || len(lines) != 2 || !strings.HasPrefix(lines[0], "demo 1.2.0 (user): "+plug) || !strings.HasPrefix(lines[1], "other 0.1.0 (project): "+q.Root) {
		t.Errorf("list %q, %v", lines, err)
	}

	if got, err := RemovePlugin(dir, "other", true); err != nil || got != q.Root {
		t.Errorf("remove other: %q, %v", got, err)
	}
	if _, err := os.Stat(q.Root); !os.IsNotExist(err) {
		t.Errorf("the clone is still there: %v", err)
	}
	if _, err := RemovePlugin(dir, "demo", false); err != nil {
		t.Errorf("remove demo: %v", err)
	}
	if _, err := os.Stat(plug); err != nil {
		t.Errorf("a folder added as a folder was deleted: %v", err)
	}
	if lines, err := ListPlugins(dir); err != nil || len(lines) != 1 || !strings.HasPrefix(lines[0], "No plugins") {
		t.Errorf("list after remove %q, %v", lines, err)
	}
	if _, err := RemovePlugin(dir, "demo", false); err == nil {
		t.Error("removing a plugin twice")
	}
}

// A plugin's agent runs by its namespaced name through the agent tool, with its own
// prompt and tools.
func TestPluginAgentRunsByItsName(t *testing.T) {
	commandHomes(t)
	plug := writeTestPlugin(t)
	dir := project(t, "plugins: ["+plug+"]\n", map[string]string{})
	r := &router{
		parent:  []scripted.Step{{Calls: []scripted.Call{{ID: "a", Name: "agent", Input: `{"prompt":"help me","description":"demo help","subagent_type":"demo:helper"}`}}}},
		subStep: func(llm.Request) scripted.Step { return scripted.Step{Text: "helped"} },
	}
	a, err := newStarted(Options{Cwd: dir, LLM: r, PermissionMode: "yolo"}, func(face.Event) {}, face.NoHuman{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { a.Close() })
	if end := a.Run(context.Background(), "get help", nil); end.StopReason != "end_turn" {
		t.Fatalf("end %+v", end)
	}
	if len(r.subReqs) != 1 {
		t.Fatalf("%d subagent requests, want 1", len(r.subReqs))
	}
	if sub := r.subReqs[0]; !strings.Contains(sub.System, "You help.") || !slices.Equal(toolNames(sub), []string{"read_file"}) {
		t.Errorf("the subagent's tools are %v, its system prompt:\n%s", toolNames(sub), sub.System)
	}
	if got := a.agent.History()[2].Content[0]; got.Text != "helped" || got.IsError {
		t.Errorf("the agent's answer is not the result: %+v", got)
	}
}
