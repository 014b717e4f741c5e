package acp

import (
	"context"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	sdk "github.com/coder/acp-go-sdk"

	"github.com/gantry-dev/gantry/internal/llm"
	"github.com/gantry-dev/gantry/internal/llm/scripted"
)

// lastResult returns the text of the tool result for call id in the model's last request.
func lastResult(t *testing.T, m *scripted.Provider, id string) string {
	t.Helper()
	reqs := m.Requests()
	for i := len(reqs) - 1; i >= 0; i-- {
		for _, msg := range reqs[i].Messages {
			for _, b := range msg.Content {
				if b.Type == llm.BlockToolResult && b.ToolCallID == id {
					return b.Text
				}
			}
		}
	}
	t.Fatalf("no result for %s was sent to the model", id)
	return ""
}

// A whole turn: each call is announced with tool_call before any update, runs
// in_progress (a command's output shown as it comes) and completes; edits carry diff
// content, a new file has no old text, bash its output; text and thinking stream as
// chunks.
func TestTurnReportsToolCalls(t *testing.T) {
	m := scripted.New(
		scripted.Step{Thinking: "Look first.", Text: "Reading.", Calls: []scripted.Call{{ID: "r1", Name: "read_file", Input: `{"path":"a.txt"}`}}},
		scripted.Step{Calls: []scripted.Call{{ID: "e1", Name: "edit_file", Input: `{"path":"a.txt","edits":[{"old":"one","new":"uno"}]}`}}},
		scripted.Step{Calls: []scripted.Call{{ID: "w1", Name: "write_file", Input: `{"path":"new.txt","content":"fresh\n"}`}}},
		scripted.Step{Calls: []scripted.Call{{ID: "b1", Name: "bash", Input: `{"command":"echo hi-from-bash"}`}}},
		scripted.Step{Text: "All done."},
	)
	h := start(t, m, sdk.ClientCapabilities{})
	a := h.write("a.txt", "one\ntwo\n")
	id := h.newSession()
	resp := h.prompt(id, "change a.txt")
	if resp.StopReason != sdk.StopReasonEndTurn {
		t.Fatalf("stop reason %q", resp.StopReason)
	}
	us := h.client.snapshot()
	for _, call := range []string{"r1", "e1", "w1", "b1"} {
		got := strings.Join(callEvents(us, call), ",")
		// Between in_progress and completed, a command's live output (content only).
		if !regexp.MustCompile(`^tool_call:pending,in_progress,(update,)*completed$`).MatchString(got) {
			t.Errorf("%s: events %s", call, got)
		}
	}
	var read *sdk.SessionUpdateToolCall
	for _, u := range us {
		if u.ToolCall != nil && u.ToolCall.ToolCallId == "r1" {
			read = u.ToolCall
		}
	}
	if read == nil || read.Kind != sdk.ToolKindRead || read.Title != "Read a.txt" || len(read.Locations) != 1 || read.Locations[0].Path != a || read.RawInput == nil {
		t.Errorf("read_file's tool_call: %+v", read)
	}
	edit := finalUpdate(us, "e1")
	if len(edit.Content) != 1 || edit.Content[0].Diff == nil {
		t.Fatalf("edit content: %+v", edit.Content)
	}
	d := edit.Content[0].Diff
	if d.Path != a || d.OldText == nil || *d.OldText != "one\ntwo\n" || d.NewText != "uno\ntwo\n" {
		t.Errorf("edit diff: path %s old %v new %q", d.Path, d.OldText, d.NewText)
	}
	w := finalUpdate(us, "w1").Content[0].Diff
	if w == nil || w.OldText != nil || w.NewText != "fresh\n" || w.Path != filepath.Join(h.dir, "new.txt") {
		t.Errorf("write_file of a new file: %+v", w)
	}
	b := finalUpdate(us, "b1")
	if len(b.Content) != 1 || b.Content[0].Content == nil || !strings.Contains(b.Content[0].Content.Content.Text.Text, "hi-from-bash") {
		t.Errorf("bash content: %+v", b.Content)
	}
	if text := agentText(us); !strings.Contains(text, "Reading.") || !strings.Contains(text, "All done.") {
		t.Errorf("agent text %q", text)
	}
	thought := false
	for _, u := range us {
		thought = thought || (u.AgentThoughtChunk != nil && u.AgentThoughtChunk.Content.Text.Text == "Look first.")
	}
	if !thought {
		t.Error("no agent_thought_chunk for the thinking")
	}
	if got, _ := os.ReadFile(a); string(got) != "uno\ntwo\n" {
		t.Errorf("a.txt on disk: %q", got)
	}
}

// Commands go out after the session/new response, never before; a todo list is a
// plan; usage is reported against the context window.
func TestCommandsPlanAndUsage(t *testing.T) {
	m := scripted.New(
		scripted.Step{Calls: []scripted.Call{{ID: "t1", Name: "todo_write", Input: `{"todos":[{"id":"1","content":"write tests","status":"in_progress"},{"id":"2","content":"ship","status":"pending"}]}`}}},
		scripted.Step{Text: "ok"},
	)
	h := start(t, m, sdk.ClientCapabilities{})
	id := h.newSession()
	h.client.waitFor(t, "available_commands_update", func(u sdk.SessionUpdate) bool { return u.AvailableCommandsUpdate != nil })
	names := map[string]bool{}
	for _, u := range h.client.snapshot() {
		if u.AvailableCommandsUpdate != nil {
			for _, c := range u.AvailableCommandsUpdate.AvailableCommands {
				names[c.Name] = true
			}
		}
	}
	for _, want := range []string{"help", "compact", "mode", "model", "skills"} {
		if !names[want] {
			t.Errorf("command %s not offered: %v", want, names)
		}
	}
	h.prompt(id, "plan it")
	var plan *sdk.SessionUpdatePlan
	usage := false
	for _, u := range h.client.snapshot() {
		if u.Plan != nil {
			plan = u.Plan
		}
		if u.UsageUpdate != nil {
			usage = u.UsageUpdate.Size > 0 && u.UsageUpdate.Used > 0
		}
	}
	if plan == nil || len(plan.Entries) != 2 || plan.Entries[0].Status != sdk.PlanEntryStatusInProgress || plan.Entries[1].Content != "ship" {
		t.Errorf("plan: %+v", plan)
	}
	if !usage {
		t.Error("no usage_update with used and size")
	}
}

// The slash commands answer without the model.
func TestSlashCommands(t *testing.T) {
	m := scripted.New()
	h := start(t, m, sdk.ClientCapabilities{})
	t.Setenv("CLAUDE_CONFIG_DIR", t.TempDir())
	rule := filepath.Join(h.dir, ".claude", "rules", "sql.md")
	if err := os.MkdirAll(filepath.Dir(rule), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(rule, []byte("---\npaths: \"**/*.sql\"\n---\nSQL RULE\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	style := filepath.Join(h.dir, ".claude", "output-styles", "terse.md")
	if err := os.MkdirAll(filepath.Dir(style), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(style, []byte("---\ndescription: one line answers\n---\nONE LINE\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	id := h.newSession()
	h.client.waitFor(t, "available_commands_update", func(u sdk.SessionUpdate) bool { return u.AvailableCommandsUpdate != nil })
	h.client.reset()
	h.prompt(id, "/output-style")
	if got := agentText(h.client.snapshot()); !strings.Contains(got, "The output style is default") || !strings.Contains(got, "- `terse` — one line answers") {
		t.Errorf("/output-style: %q", got)
	}
	h.client.reset()
	h.prompt(id, "/output-style terse")
	if got := agentText(h.client.snapshot()); !strings.Contains(got, "The output style is now terse.") {
		t.Errorf("/output-style terse: %q", got)
	}
	h.client.reset()
	h.prompt(id, "/memory")
	if got := agentText(h.client.snapshot()); !strings.Contains(got, "`"+rule+"` (") || !strings.Contains(got, "waiting for its paths: `**/*.sql`") {
		t.Errorf("/memory: %q", got)
	}
	h.client.reset()
	if r := h.prompt(id, "/mode plan"); r.StopReason != sdk.StopReasonEndTurn {
		t.Fatalf("stop %s", r.StopReason)
	}
	us := h.client.snapshot()
	if !strings.Contains(agentText(us), "now plan") {
		t.Errorf("reply %q", agentText(us))
	}
	mode := false
	for _, u := range us {
		mode = mode || (u.CurrentModeUpdate != nil && u.CurrentModeUpdate.CurrentModeId == "plan")
	}
	if !mode {
		t.Error("no current_mode_update after /mode plan")
	}
	h.client.reset()
	h.prompt(id, "/context")
	if got := agentText(h.client.snapshot()); !strings.Contains(got, "tools' schemas") || !strings.Contains(got, "Tools declared (") {
		t.Errorf("/context: %q", got)
	}
	h.client.reset()
	h.prompt(id, "/help")
	if !strings.Contains(agentText(h.client.snapshot()), "/compact") {
		t.Errorf("/help: %q", agentText(h.client.snapshot()))
	}
	if n := len(m.Requests()); n != 0 {
		t.Errorf("slash commands reached the model %d times", n)
	}
}

// A relative cwd, an unknown session and a bad mode are refused with errors.
func TestRefusals(t *testing.T) {
	h := start(t, scripted.New(), sdk.ClientCapabilities{})
	ctx := context.Background()
	if _, err := h.conn.NewSession(ctx, sdk.NewSessionRequest{Cwd: "rel/dir", McpServers: []sdk.McpServer{}}); err == nil || !strings.Contains(err.Error(), "absolute") {
		t.Errorf("relative cwd: %v", err)
	}
	if _, err := h.conn.Prompt(ctx, sdk.PromptRequest{SessionId: "nope", Prompt: []sdk.ContentBlock{sdk.TextBlock("hi")}}); err == nil || !strings.Contains(err.Error(), "-32002") {
		t.Errorf("unknown session: %v", err)
	}
	id := h.newSession()
	if _, err := h.conn.SetSessionMode(ctx, sdk.SetSessionModeRequest{SessionId: id, ModeId: "turbo"}); err == nil {
		t.Error("an unknown mode was accepted")
	}
	if _, err := h.conn.Authenticate(ctx, sdk.AuthenticateRequest{MethodId: authMethodID}); err != nil {
		t.Errorf("authenticate: %v", err)
	}
	if _, err := h.conn.Authenticate(ctx, sdk.AuthenticateRequest{MethodId: "oauth"}); err == nil {
		t.Error("an unknown auth method was accepted")
	}
}

// A subagent's usage counts in the session's cost but not in how full the context is.
func TestUsageOfSubagentKeepsContext(t *testing.T) {
	m := scripted.New(
		scripted.Step{Calls: []scripted.Call{{ID: "a1", Name: "agent", Input: `{"prompt":"look around","description":"look around","read_only":true}`}}},
		scripted.Step{Text: "found it", Usage: llm.Usage{InputTokens: 5000, OutputTokens: 10}},
		scripted.Step{Text: "done"},
	)
	h := start(t, m, sdk.ClientCapabilities{})
	id := h.newSession()
	h.prompt(id, "delegate")
	var used []int
	for _, u := range h.client.snapshot() {
		if u.UsageUpdate != nil {
			used = append(used, u.UsageUpdate.Used)
		}
	}
	if len(used) < 3 {
		t.Fatalf("usage updates %v", used)
	}
	for _, n := range used {
		if n != 110 {
			t.Errorf("usage updates %v: the subagent's 5010 tokens were reported as the context", used)
			break
		}
	}
}
