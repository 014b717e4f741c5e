package app

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/gantry-dev/gantry/internal/commands"
	"github.com/gantry-dev/gantry/internal/config"
	"github.com/gantry-dev/gantry/internal/face"
	"github.com/gantry-dev/gantry/internal/llm"
	"github.com/gantry-dev/gantry/internal/llm/scripted"
)

// notices gathers the notices a session sends.
type notices struct {
	mu   sync.Mutex
	text []string
}

func (n *notices) sink(e face.Event) {
	if e, ok := e.(face.Notice); ok {
		n.mu.Lock()
		n.text = append(n.text, e.Text)
		n.mu.Unlock()
	}
}

func (n *notices) all() string {
	n.mu.Lock()
	defer n.mu.Unlock()
	return strings.Join(n.text, "\n")
}

// userText is the text of the last user message of a request.
func userText(r llm.Request) string {
	for i := len(r.Messages) - 1; i >= 0; i-- {
		if r.Messages[i].Role == llm.RoleUser {
			return r.Messages[i].Text()
		}
	}
	return ""
}

// commandHomes points Claude Code's and Codex's user folders at fresh folders.
func commandHomes(t *testing.T) (claude, codex string) {
	claude, codex = t.TempDir(), t.TempDir()
	t.Setenv("CLAUDE_CONFIG_DIR", claude)
	t.Setenv("CODEX_HOME", codex)
	return claude, codex
}

// runCommand runs prompt as a face does: ExpandPrompt, then Run.
func runTyped(t *testing.T, a *App, prompt string) {
	t.Helper()
	expanded, notes := a.ExpandPrompt(prompt)
	if len(notes) > 0 {
		t.Fatalf("notes: %v", notes)
	}
	if end := a.Run(context.Background(), expanded, nil); end.StopReason != "end_turn" {
		t.Fatalf("end %+v", end)
	}
}

// A Claude-shaped project command in a namespace folder: its arguments, its !`line`
// (allowed by its allowed-tools, through the gate), its @file, its model for the turn
// only, and its grant shown and gone after the turn.
func TestCommandRunsWithItsFrontMatter(t *testing.T) {
	commandHomes(t)
	dir := project(t, "", map[string]string{
		"notes.txt": "the notes say hi\n",
		".claude/commands/frontend/build.md": "---\ndescription: Build it\nargument-hint: [what] [how]\nallowed-tools: Bash(echo:*), Read\nmodel: claude-haiku-4-5\n---\n" +
			"Build $1 the $2 way ($ARGUMENTS).\nShell: !`echo from-the-shell`\nSee @notes.txt\n",
	})
	var a *App
	var during []string
	var model string
	m := scripted.New(scripted.Step{Func: func(req llm.Request) scripted.Step {
		model = req.Model
		allow, _ := a.Rules()
		for _, r := range allow {
			if r.Source == "command /build" {
				during = append(during, r.String())
			}
		}
		return scripted.Step{Text: "built"}
	}})
	var n notices
	var err error
	if a, err = newStarted(Options{Cwd: dir, LLM: m}, n.sink, face.NoHuman{}); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { a.Close() })
	before := a.Model()
	cmds := a.Commands()
	if len(cmds) != 1 || cmds[0].Name != "build" || cmds[0].Description != "Build it (project:frontend)" || cmds[0].ArgumentHint != "[what] [how]" {
		t.Fatalf("commands = %+v", cmds)
	}
	runTyped(t, a, "/build UI fast")
	reqs := m.Requests()
	got := userText(reqs[len(reqs)-1])
	for _, want := range []string{"Build UI the fast way (UI fast).", "Shell: from-the-shell", "the notes say hi"} {
		if !strings.Contains(got, want) {
			t.Errorf("the model got %q, without %q", got, want)
		}
	}
	if strings.Contains(got, "/build") {
		t.Errorf("the model got the command as typed: %q", got)
	}
	if model != "claude-haiku-4-5" || a.Model() != before {
		t.Errorf("the turn ran on %q, the session is on %q after it (want claude-haiku-4-5, then %q)", model, a.Model(), before)
	}
	if !slices.Contains(during, "bash:echo( .*)?") || !slices.Contains(during, "read_file") {
		t.Errorf("rules during the turn: %q", during)
	}
	allow, _ := a.Rules()
	for _, r := range allow {
		if r.Source == "command /build" {
			t.Errorf("the rule %s outlived the turn", r)
		}
	}
	said := n.all()
	for _, want := range []string{"The command /build allows for this turn", "bash:echo( .*)?", "runs this turn on claude-haiku-4-5"} {
		if !strings.Contains(said, want) {
			t.Errorf("the person was not told %q: %s", want, said)
		}
	}
}

// A command's !`line` that its allowed-tools do not allow goes through the gate like
// any bash call: with no one to ask it is refused, and nothing runs.
func TestCommandShellLineGoesThroughTheGate(t *testing.T) {
	claude, _ := commandHomes(t)
	dir := project(t, "", map[string]string{})
	if err := os.MkdirAll(filepath.Join(claude, "commands"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(claude, "commands", "touch.md"), []byte("Made: !`touch made.txt`\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	m := scripted.New()
	var n notices
	a, err := newStarted(Options{Cwd: dir, LLM: m}, n.sink, face.NoHuman{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { a.Close() })
	runTyped(t, a, "/touch")
	if _, err := os.Stat(filepath.Join(dir, "made.txt")); err == nil {
		t.Error("the command's shell line ran without permission")
	}
	reqs := m.Requests()
	if got := userText(reqs[len(reqs)-1]); !strings.Contains(got, "`touch made.txt` did not run") {
		t.Errorf("the model got %q", got)
	}
	if !strings.Contains(n.all(), "!`touch made.txt` did not run") {
		t.Errorf("the person was not told: %s", n.all())
	}
}

// A Codex prompt runs as /prompts:name with named arguments; a project's commands
// are not found while the folder is not trusted.
func TestCodexPromptAndUntrustedProject(t *testing.T) {
	_, codex := commandHomes(t)
	dir := project(t, "", map[string]string{
		".gantry/commands/proj.md": "project command\n",
		".mcp.json":                `{"mcpServers":{"x":{"command":"true"}}}`, // something to trust
	})
	if err := os.WriteFile(filepath.Join(os.Getenv("GANTRY_CONFIG_DIR"), "config.yaml"), nil, 0o644); err != nil {
		t.Fatal(err) // the folder is not trusted
	}
	if err := os.MkdirAll(filepath.Join(codex, "prompts"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(codex, "prompts", "draftpr.md"), []byte("---\ndescription: Draft a PR\n---\nOpen a PR titled $TITLE for $FILES.\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	m := scripted.New()
	a := open(t, Options{Cwd: dir, LLM: m})
	var names []string
	for _, c := range a.Commands() {
		names = append(names, c.Name)
	}
	if strings.Join(names, " ") != "prompts:draftpr" {
		t.Fatalf("commands = %v", names)
	}
	runTyped(t, a, `/prompts:draftpr FILES="a.go b.go" TITLE=Fix`)
	reqs := m.Requests()
	if got := userText(reqs[len(reqs)-1]); !strings.Contains(got, "Open a PR titled Fix for a.go b.go.") {
		t.Errorf("the model got %q", got)
	}
}

// A folder with nothing else to trust is never asked: its commands run, but their
// allowed-tools grant nothing until the person trusts it, and a notice says so.
func TestProjectCommandGrantsNeedTheFolderTrusted(t *testing.T) {
	commandHomes(t)
	dir := project(t, "", map[string]string{
		".claude/commands/mk.md": "---\nallowed-tools: Bash(touch:*)\n---\nMade: !`touch made.txt`\n",
	})
	if err := os.WriteFile(filepath.Join(os.Getenv("GANTRY_CONFIG_DIR"), "config.yaml"), nil, 0o644); err != nil {
		t.Fatal(err) // not in trustedFolders
	}
	m := scripted.New()
	var n notices
	a, err := newStarted(Options{Cwd: dir, LLM: m}, n.sink, face.NoHuman{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { a.Close() })
	runTyped(t, a, "/mk")
	if _, err := os.Stat(filepath.Join(dir, "made.txt")); err == nil {
		t.Error("an untrusted project's command granted itself bash")
	}
	if !strings.Contains(n.all(), "its allowed-tools are not granted") {
		t.Errorf("the person was not told: %s", n.all())
	}
}

// gantry doctor lists the commands with their files, the one a name found first
// shadows, and the project's left out of a folder not trusted.
func TestDoctorListsCommands(t *testing.T) {
	claude, _ := commandHomes(t)
	dir := project(t, "", map[string]string{".claude/commands/hello.md": "project hello\n"})
	if err := os.MkdirAll(filepath.Join(claude, "commands"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(claude, "commands", "hello.md"), []byte("user hello\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	text := func(rows []DoctorRow) string {
		var b strings.Builder
		for _, r := range rows {
			b.WriteString(r.Name + " " + r.Value + "\n")
		}
		return b.String()
	}
	// A plugin the user enabled: its commands are listed too, by their names.
	plug := writeTestPlugin(t)
	if err := os.WriteFile(filepath.Join(config.UserDir(), "config.yaml"), []byte("plugins:\n  - "+plug+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	cfg, err := config.Load(dir)
	if err != nil {
		t.Fatal(err)
	}
	got := text(commandRows(cfg, true))
	for _, want := range []string{"2 custom command(s)", "/hello: " + filepath.Join(dir, ".claude", "commands", "hello.md"), "ignored: " + filepath.Join(claude, "commands", "hello.md"), "/demo:hello: " + filepath.Join(plug, "commands", "hello.md")} {
		if !strings.Contains(got, want) {
			t.Errorf("doctor lacks %q:\n%s", want, got)
		}
	}
	got = text(commandRows(cfg, false))
	if !strings.Contains(got, "/hello: "+filepath.Join(claude, "commands", "hello.md")) || !strings.Contains(got, "the folder is not trusted") {
		t.Errorf("doctor for a folder not trusted:\n%s", got)
	}
}

// An MCP server's prompt is the command /mcp__server__prompt: listed with its
// description and arguments, and run with the words given to its arguments in order.
func TestMCPPromptAsCommand(t *testing.T) {
	echo := echoServer(t)
	commandHomes(t)
	dir := project(t, "", map[string]string{".mcp.json": `{"mcpServers": {"echo": {"command": "` + echo + `"}}}`})
	m := scripted.New()
	a := open(t, Options{Cwd: dir, LLM: m})
	var review *commands.Command
	for _, c := range a.Commands() {
		if c.Name == "mcp__echo__review" {
			review = &c
		}
	}
	if review == nil || review.Description != "Reviews a file. (MCP server echo)" || review.ArgumentHint != "<file> [focus]" {
		t.Fatalf("the prompt as a command: %+v", review)
	}
	runTyped(t, a, "/mcp__echo__review main.go speed and size")
	reqs := m.Requests()
	if got := userText(reqs[len(reqs)-1]); !strings.Contains(got, "Review main.go for speed and size.") {
		t.Errorf("the model got %q", got)
	}
}

// A command in the shape of Claude Code's own commit-push-pr: several Bash(prefix:*)
// entries, and !`git …` lines in a Markdown list, run under them in a real repository.
func TestClaudeShapedGitCommand(t *testing.T) {
	commandHomes(t)
	dir := project(t, "", map[string]string{
		".claude/commands/ship.md": "---\nallowed-tools: Bash(git checkout --branch:*), Bash(git add:*), Bash(git status:*), Bash(git branch:*)\ndescription: Commit and ship\n---\n\n## Context\n\n- Status: !`git status --short`\n- Branch: !`git branch --show-current`\n\n## Your task\n\nShip it.\n",
		"new.txt":                  "x\n",
	})
	if err := os.RemoveAll(filepath.Join(dir, ".git")); err != nil {
		t.Fatal(err)
	}
	if out, err := exec.Command("git", "-C", dir, "init", "-q", "-b", "trunk").CombinedOutput(); err != nil {
		t.Fatalf("git init: %v\n%s", err, out)
	}
	m := scripted.New()
	var n notices
	a, err := newStarted(Options{Cwd: dir, LLM: m}, n.sink, face.NoHuman{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { a.Close() })
	runTyped(t, a, "/ship")
	reqs := m.Requests()
	got := userText(reqs[len(reqs)-1])
	for _, want := range []string{"- Status: ", "?? new.txt", "- Branch: trunk", "Ship it."} {
		if !strings.Contains(got, want) {
			t.Errorf("the model got %q, without %q", got, want)
		}
	}
	if said := n.all(); !strings.Contains(said, "bash:git status( .*)?") || strings.Contains(said, "did not run") {
		t.Errorf("notices: %s", said)
	}
}
