package acp

import (
	"context"
	"strings"
	"testing"

	sdk "github.com/coder/acp-go-sdk"

	"github.com/gantry-dev/gantry/internal/llm"
	"github.com/gantry-dev/gantry/internal/llm/scripted"
)

// session/load replays the stored conversation before answering, and the loaded
// session goes on with its history; session/list lists it.
func TestLoadReplaysHistory(t *testing.T) {
	m := scripted.New(
		scripted.Step{Text: "Let me look.", Calls: []scripted.Call{{ID: "r1", Name: "read_file", Input: `{"path":"notes.txt"}`}}},
		scripted.Step{Text: "The notes say hello."},
		scripted.Step{Text: "Still here."},
	)
	h := start(t, m, sdk.ClientCapabilities{})
	h.write("notes.txt", "hello\n")
	id := h.newSession()
	h.prompt(id, "what do the notes say?")

	h.serve(sdk.ClientCapabilities{}) // a second agent on the same store, as after a restart
	h.client.reset()
	ctx := context.Background()
	list, err := h.conn.ListSessions(ctx, sdk.ListSessionsRequest{Cwd: sdk.Ptr(h.dir)})
	if err != nil || len(list.Sessions) != 1 || list.Sessions[0].SessionId != id || list.Sessions[0].Title == nil {
		t.Fatalf("session/list: %+v, %v", list, err)
	}
	if _, err := h.conn.LoadSession(ctx, sdk.LoadSessionRequest{SessionId: id, Cwd: h.dir, McpServers: []sdk.McpServer{}}); err != nil {
		t.Fatalf("session/load: %v", err)
	}
	// The SDK's client returns only after the updates sent before the answer.
	var kinds []string
	for _, u := range h.client.snapshot() {
		if k := kindOf(u); k != "available_commands_update" { // sent on its own time, by either agent
			kinds = append(kinds, k)
		}
	}
	got := strings.Join(kinds, ",")
	if !strings.HasPrefix(got, "user_message_chunk,agent_message_chunk,tool_call,tool_call_update,agent_message_chunk") {
		t.Fatalf("replayed %s", got)
	}
	us := h.client.snapshot()
	first := ""
	for _, u := range us {
		if u.UserMessageChunk != nil && u.UserMessageChunk.Content.Text != nil {
			first = u.UserMessageChunk.Content.Text.Text
			break
		}
	}
	if first != "what do the notes say?" || !strings.Contains(agentText(us), "The notes say hello.") {
		t.Errorf("replayed text: %q / %q", first, agentText(us))
	}
	if f := finalUpdate(us, "r1"); f == nil || *f.Status != sdk.ToolCallStatusCompleted {
		t.Errorf("replayed call: %+v", f)
	}
	h.prompt(id, "and now?")
	last := m.Requests()[len(m.Requests())-1]
	found := false
	for _, msg := range last.Messages {
		found = found || (msg.Role == llm.RoleAssistant && strings.Contains(msg.Text(), "The notes say hello."))
	}
	if !found {
		t.Error("the loaded session's request lacks its history")
	}
	if _, err := h.conn.LoadSession(ctx, sdk.LoadSessionRequest{SessionId: "missing", Cwd: h.dir, McpServers: []sdk.McpServer{}}); err == nil || !strings.Contains(err.Error(), "-32002") {
		t.Errorf("loading a missing session: %v", err)
	}
}

// session/load of a session another agent runs is refused with a sentence that
// names the holder; once that agent ends, it loads.
func TestLoadOfAHeldSessionIsRefused(t *testing.T) {
	m := scripted.New(scripted.Step{Text: "first"}, scripted.Step{Text: "second"})
	h := start(t, m, sdk.ClientCapabilities{})
	id := h.newSession()
	h.prompt(id, "hello")

	other := &harness{t: t, client: newTestClient(), model: m, dir: h.dir, store: h.store}
	other.serve(sdk.ClientCapabilities{}) // beside the first, which still runs the session
	ctx := context.Background()
	_, err := other.conn.LoadSession(ctx, sdk.LoadSessionRequest{SessionId: id, Cwd: h.dir, McpServers: []sdk.McpServer{}})
	if err == nil || !strings.Contains(err.Error(), "is being run by another gantry (pid") {
		t.Fatalf("loading a held session: %v", err)
	}
	h.stop()
	if _, err := other.conn.LoadSession(ctx, sdk.LoadSessionRequest{SessionId: id, Cwd: h.dir, McpServers: []sdk.McpServer{}}); err != nil {
		t.Fatalf("loading it once the holder ended: %v", err)
	}
}
