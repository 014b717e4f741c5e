package app

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/gantry-dev/gantry/internal/face"
	"github.com/gantry-dev/gantry/internal/llm"
	"github.com/gantry-dev/gantry/internal/llm/scripted"
)

// A reviewer in the shape of anthropics/claude-code's plugins/*/agents/*.md.
const reviewerDef = `---
name: reviewer
description: Reviews a change for bugs. Use it after writing code.
tools: Read, Grep, NotebookRead, Frobnicate
model: haiku
color: red
---
You are a careful reviewer; report only real bugs.
`

// agentsProject is a trusted project with a Claude Code agent definition, a bad
// gantry one, and a user one in Claude Code's user folder.
func agentsProject(t *testing.T) string {
	t.Helper()
	dir := project(t, "", map[string]string{
		".claude/agents/reviewer.md": reviewerDef,
		".gantry/agents/broken.md":   "---\n: : :\nname broken\n---\nbody\n",
	})
	claude := t.TempDir()
	t.Setenv("CLAUDE_CONFIG_DIR", claude)
	if err := os.MkdirAll(filepath.Join(claude, "agents"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(claude, "agents", "explorer.md"), []byte("---\nname: explorer\ndescription: Explores the code\n---\nExplore.\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	return dir
}

func TestAgentToolRunsADefinition(t *testing.T) {
	dir := agentsProject(t)
	r := &router{
		parent: []scripted.Step{
			{Calls: []scripted.Call{{ID: "a", Name: "agent", Input: `{"prompt":"review add.go","description":"review add","subagent_type":"reviewer"}`}}},
			{Calls: []scripted.Call{{ID: "b", Name: "agent", Input: `{"prompt":"look","subagent_type":"nope"}`}}},
		},
		subStep: func(llm.Request) scripted.Step { return scripted.Step{Text: "no bugs"} },
	}
	var mu sync.Mutex
	var notices []string
	a, err := newStarted(Options{Cwd: dir, LLM: r, PermissionMode: "yolo"}, func(e face.Event) {
		if n, ok := e.(face.Notice); ok {
			mu.Lock()
			notices = append(notices, n.Text)
			mu.Unlock()
		}
	}, face.NoHuman{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { a.Close() })
	if end := a.Run(context.Background(), "review my change", nil); end.StopReason != "end_turn" {
		t.Fatalf("end %+v", end)
	}

	if len(r.subReqs) != 1 {
		t.Fatalf("%d subagent requests, want 1", len(r.subReqs))
	}
	sub := r.subReqs[0]
	if !strings.Contains(sub.System, "You are a careful reviewer; report only real bugs.") {
		t.Errorf("the subagent's system prompt lacks the definition's body:\n%s", sub.System)
	}
	if names := toolNames(sub); !slices.Equal(names, []string{"grep", "read_file"}) {
		t.Errorf("the subagent's tools are %v, want the definition's Read and Grep as gantry's", names)
	}
	if sub.Model != "claude-haiku-4-5" {
		t.Errorf("the subagent runs on %q, want haiku's model", sub.Model)
	}
	h := a.agent.History()
	if got := h[2].Content[0]; got.Text != "no bugs" || got.IsError {
		t.Errorf("the definition's answer is not the result: %+v", got)
	}
	unknown := h[4].Content[0]
	if !unknown.IsError || !strings.Contains(unknown.Text, `there is no agent definition "nope"; the known ones are explorer, reviewer`) {
		t.Errorf("an unknown definition was answered %+v", unknown)
	}

	// The description lists the definitions, one line each.
	for _, spec := range a.reg.Specs(2) {
		if spec.Name == "agent" && !strings.Contains(spec.Description, "\n- reviewer: Reviews a change for bugs.\n- explorer") && !strings.Contains(spec.Description, "\n- explorer: Explores the code\n- reviewer: Reviews a change for bugs.") {
			t.Errorf("the agent tool's description does not list the definitions:\n%s", spec.Description)
		}
	}

	mu.Lock()
	defer mu.Unlock()
	for _, part := range []string{
		filepath.Join(".gantry", "agents", "broken.md") + " is not used: its front matter is not valid YAML",
		"reviewer.md names tools gantry does not have (Frobnicate); it runs without them.",
	} {
		if !slices.ContainsFunc(notices, func(n string) bool { return strings.Contains(n, part) }) {
			t.Errorf("no notice %q in %q", part, notices)
		}
	}
	got := a.Agents()
	if len(got) != 2 || got[0].Source != "user "+filepath.Join(os.Getenv("CLAUDE_CONFIG_DIR"), "agents") || got[1].Source != "project .claude/agents" {
		t.Errorf("Agents() = %+v", got)
	}
}

// An untrusted folder's definitions are not offered; the user's are.
func TestAgentDefinitionsNeedATrustedFolder(t *testing.T) {
	dir := agentsProject(t)
	// The project has a server, so that its trust is asked (and refused: nobody answers).
	if err := os.WriteFile(filepath.Join(dir, ".mcp.json"), []byte(`{"mcpServers":{"x":{"command":"true"}}}`), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(os.Getenv("GANTRY_CONFIG_DIR"), "config.yaml"), nil, 0o644); err != nil {
		t.Fatal(err)
	}
	a := open(t, Options{Cwd: dir, LLM: scripted.New(scripted.Step{Text: "hi"})})
	if tr := a.FolderTrust(); tr.Trusted() {
		t.Fatalf("the folder is trusted: %+v", tr)
	}
	if got := a.Agents(); len(got) != 1 || got[0].Name != "explorer" {
		t.Errorf("an untrusted folder offers %+v", got)
	}

	// A "yes" at the start reads the project's too, and the agent tool offers them.
	b, _ := sessionIn(t, Options{Cwd: dir}, &trustAsker{yes: true})
	if got := b.Agents(); len(got) != 2 || got[1].Name != "reviewer" {
		t.Errorf("after a yes: %+v", got)
	}
	if ag, ok := b.reg.Lookup("agent"); !ok || !strings.Contains(ag.Spec().Description, "- reviewer: Reviews a change for bugs.") {
		t.Error("after a yes the agent tool does not list the project's definition")
	}
}

// A definition's tools are still capped by the caller's: read_only leaves a
// definition listing Bash without bash; inherit is the session's model.
func TestAgentDefinitionIsCappedByTheCaller(t *testing.T) {
	dir := agentsProject(t)
	if err := os.WriteFile(filepath.Join(dir, ".claude", "agents", "runner.md"), []byte("---\nname: runner\ndescription: Runs things\ntools: Bash, Read\nmodel: inherit\n---\nRun.\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	r := &router{
		parent:  []scripted.Step{{Calls: []scripted.Call{{ID: "a", Name: "agent", Input: `{"prompt":"run the tests","subagent_type":"runner","read_only":true}`}}}},
		subStep: func(llm.Request) scripted.Step { return scripted.Step{Text: "done"} },
	}
	a, err := newStarted(Options{Cwd: dir, LLM: r, PermissionMode: "yolo"}, func(face.Event) {}, face.NoHuman{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { a.Close() })
	if end := a.Run(context.Background(), "run", nil); end.StopReason != "end_turn" {
		t.Fatalf("end %+v", end)
	}
	if len(r.subReqs) != 1 {
		t.Fatalf("%d subagent requests", len(r.subReqs))
	}
	if names := toolNames(r.subReqs[0]); !slices.Equal(names, []string{"read_file"}) {
		t.Errorf("a read-only runner got %v, want read_file alone", names)
	}
	if got, want := r.subReqs[0].Model, a.agent.Config.Model; got != want {
		t.Errorf("inherit ran on %q, want the session's %q", got, want)
	}
}

// subagentLoop answers every request of a subagent from the definition it runs (named
// in its system prompt): the first turn is the script's call, a later one a text
// holding the last tool result, or the call again when again says so.
type subagentLoop struct {
	mu      sync.Mutex
	calls   map[string]string // definition: bash command of its first turn
	again   map[string]bool   // definition: call on every turn
	results map[string]string // definition: the text of its last tool result
}

func (l *subagentLoop) step(req llm.Request) scripted.Step {
	name := ""
	if _, rest, ok := strings.Cut(req.System, `<agent-definition name="`); ok {
		name, _, _ = strings.Cut(rest, `"`)
	}
	last := req.Messages[len(req.Messages)-1]
	if len(req.Messages) > 1 && len(last.Content) > 0 {
		l.mu.Lock()
		l.results[name] = last.Content[0].Text
		l.mu.Unlock()
	}
	if len(req.Messages) == 1 || l.again[name] {
		return scripted.Step{Calls: []scripted.Call{{ID: "c", Name: "bash", Input: `{"command":"` + l.calls[name] + `"}`}}}
	}
	return scripted.Step{Text: "done"}
}

// A definition's permissionMode narrows its subagent's permissions and never widens
// them: under a yolo caller, default asks (and nobody answers: refused), dontAsk
// refuses what would be asked, plan gives read tools only; under a default caller,
// bypassPermissions is capped (said in a notice) and asks. maxTurns stops the
// subagent after that many turns with a result saying so.
func TestAgentDefinitionModeAndMaxTurns(t *testing.T) {
	dir := agentsProject(t)
	for name, front := range map[string]string{
		"careful": "permissionMode: default", "quiet": "permissionMode: dontAsk", "planner": "permissionMode: plan",
		"bold": "permissionMode: bypassPermissions", "looper": "maxTurns: 2",
	} {
		body := "---\nname: " + name + "\ndescription: The " + name + " one\ntools: Bash, Read\n" + front + "\n---\nWork.\n"
		if err := os.WriteFile(filepath.Join(dir, ".claude", "agents", name+".md"), []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	loop := &subagentLoop{
		calls:   map[string]string{"careful": "touch careful.txt", "quiet": "touch quiet.txt", "planner": "touch planner.txt", "bold": "touch bold.txt", "looper": "true"},
		again:   map[string]bool{"looper": true},
		results: map[string]string{},
	}
	run := func(mode string, allow []string, defs ...string) (*App, []string) {
		t.Helper()
		var steps []scripted.Step
		for _, d := range defs {
			steps = append(steps, scripted.Step{Calls: []scripted.Call{{ID: d, Name: "agent", Input: `{"prompt":"work","description":"` + d + `","subagent_type":"` + d + `"}`}}})
		}
		r := &router{parent: steps, subStep: loop.step}
		var mu sync.Mutex
		var notices []string
		a, err := newStarted(Options{Cwd: dir, LLM: r, PermissionMode: mode, Allow: allow}, func(e face.Event) {
			if n, ok := e.(face.Notice); ok {
				mu.Lock()
				notices = append(notices, n.Text)
				mu.Unlock()
			}
		}, face.NoHuman{})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { a.Close() })
		if end := a.Run(context.Background(), "work", nil); end.StopReason != "end_turn" {
			t.Fatalf("end %+v", end)
		}
		for _, req := range r.subReqs {
			if strings.Contains(req.System, `name="planner"`) {
				if names := toolNames(req); !slices.Equal(names, []string{"read_file"}) {
					t.Errorf("the planner's tools are %v, want read_file alone", names)
				}
			}
		}
		mu.Lock()
		defer mu.Unlock()
		return a, slices.Clone(notices)
	}

	a, _ := run("yolo", nil, "careful", "quiet", "planner", "looper")
	for _, f := range []string{"careful.txt", "quiet.txt", "planner.txt"} {
		if _, err := os.Stat(filepath.Join(dir, f)); err == nil {
			t.Errorf("%s was made: the definition's mode did not narrow the caller's yolo", f)
		}
	}
	loop.mu.Lock()
	if r := loop.results["quiet"]; !strings.Contains(r, "permissionMode dontAsk, which refuses what would be asked") {
		t.Errorf("quiet's bash call was answered %q", r)
	}
	if r := loop.results["careful"]; r == "" || strings.Contains(r, "dontAsk") {
		t.Errorf("careful's bash call was answered %q", r)
	}
	loop.mu.Unlock()
	var looper string
	for _, m := range a.agent.History() {
		for _, b := range m.Content {
			if strings.Contains(b.Text, "maxTurns") {
				looper = b.Text
			}
		}
	}
	if !strings.Contains(looper, "The subagent failed: it stopped after 2 model turns, the maxTurns of its definition looper, before it finished.") {
		t.Errorf("the looper's result is %q", looper)
	}

	// The caller may run the agent tool (allowed by a rule), and nothing else unasked.
	_, notices := run("default", []string{"agent"}, "bold")
	if _, err := os.Stat(filepath.Join(dir, "bold.txt")); err == nil {
		t.Error("bold.txt was made: bypassPermissions escalated past the caller's default")
	}
	loop.mu.Lock()
	if r := loop.results["bold"]; r == "" {
		t.Error("the bold subagent did not run")
	}
	loop.mu.Unlock()
	if !slices.ContainsFunc(notices, func(n string) bool {
		return strings.Contains(n, "(bold): its definition's permissionMode bypassPermissions is capped at its caller's mode, default")
	}) {
		t.Errorf("no notice of the cap in %q", notices)
	}
}

// A SubagentStart hook (Claude Code's, from its user settings) is matched on the
// agent's type: for the reviewer it reads the agent's id and type and what it prints
// as additionalContext is in the subagent's instructions; a general subagent does not
// run it. SubagentStop hooks read the type too.
func TestSubagentStartHook(t *testing.T) {
	dir := agentsProject(t)
	claude := os.Getenv("CLAUDE_CONFIG_DIR")
	out := filepath.Join(t.TempDir(), "start.json")
	stop := filepath.Join(t.TempDir(), "stop.json")
	settings := `{"hooks": {
  "SubagentStart": [{"matcher": "reviewer", "hooks": [{"type": "command", "command": "cat >> ` + out + `; echo '{\"hookSpecificOutput\": {\"hookEventName\": \"SubagentStart\", \"additionalContext\": \"Review against STYLE.md.\"}}'"}]}],
  "SubagentStop": [{"hooks": [{"type": "command", "command": "cat >> ` + stop + `"}]}]
}}`
	if err := os.WriteFile(filepath.Join(claude, "settings.json"), []byte(settings), 0o644); err != nil {
		t.Fatal(err)
	}
	r := &router{
		parent: []scripted.Step{{Calls: []scripted.Call{
			{ID: "a", Name: "agent", Input: `{"prompt":"review it","description":"review","subagent_type":"reviewer"}`},
		}}, {Calls: []scripted.Call{
			{ID: "b", Name: "agent", Input: `{"prompt":"look around","description":"look"}`},
		}}},
		subStep: func(llm.Request) scripted.Step { return scripted.Step{Text: "done"} },
	}
	a, err := newStarted(Options{Cwd: dir, LLM: r, PermissionMode: "yolo", Trust: true}, func(face.Event) {}, face.NoHuman{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { a.Close() })
	if end := a.Run(context.Background(), "review", nil); end.StopReason != "end_turn" {
		t.Fatalf("end %+v", end)
	}
	if len(r.subReqs) != 2 {
		t.Fatalf("%d subagent requests", len(r.subReqs))
	}
	if !strings.Contains(r.subReqs[0].System, "Review against STYLE.md.") || strings.Contains(r.subReqs[1].System, "STYLE.md") {
		t.Errorf("the hook's context: reviewer %v, general %v", strings.Contains(r.subReqs[0].System, "STYLE.md"), strings.Contains(r.subReqs[1].System, "STYLE.md"))
	}
	b, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	if n := strings.Count(string(b), `"hook_event_name":"SubagentStart"`); n != 1 || !strings.Contains(string(b), `"agent_type":"reviewer"`) {
		t.Errorf("SubagentStart ran %d times with %s", n, b)
	}
	if b, err = os.ReadFile(stop); err != nil || !strings.Contains(string(b), `"agent_type":"reviewer"`) || !strings.Contains(string(b), `"agent_type":"general-purpose"`) {
		t.Errorf("SubagentStop's input %s (%v)", b, err)
	}
}
