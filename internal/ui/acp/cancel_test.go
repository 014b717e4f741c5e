package acp

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	sdk "github.com/coder/acp-go-sdk"

	"github.com/gantry-dev/gantry/internal/llm/scripted"
	"github.com/gantry-dev/gantry/internal/procgroup/proctest"
	"github.com/gantry-dev/gantry/internal/testenv"
)

// promptAsync runs a prompt in the background.
func (h *harness) promptAsync(id sdk.SessionId, text string) <-chan sdk.PromptResponse {
	out := make(chan sdk.PromptResponse, 1)
	go func() {
		resp, err := h.conn.Prompt(context.Background(), sdk.PromptRequest{SessionId: id, Prompt: []sdk.ContentBlock{sdk.TextBlock(text)}})
		if err != nil {
			resp.StopReason = sdk.StopReason("error: " + err.Error())
		}
		out <- resp
	}()
	return out
}

func waitResponse(t *testing.T, ch <-chan sdk.PromptResponse) sdk.PromptResponse {
	t.Helper()
	select {
	case r := <-ch:
		return r
	case <-time.After(15 * time.Second):
		t.Fatal("the prompt was not answered")
	}
	return sdk.PromptResponse{}
}

// session/cancel while bash sleeps: the process group is killed, the call fails,
// its last update still goes out, and the prompt answers "cancelled".
func TestCancelKillsCommand(t *testing.T) {
	marker := "acp-cancel-marker-" + t.Name()
	m := scripted.New(bashStep("b1", "sleep 30; echo "+marker), scripted.Step{Text: "next turn"})
	h := start(t, m, sdk.ClientCapabilities{})
	id := h.newSession()
	done := h.promptAsync(id, "sleep")
	h.client.waitFor(t, "in_progress", func(u sdk.SessionUpdate) bool {
		return u.ToolCallUpdate != nil && u.ToolCallUpdate.Status != nil && *u.ToolCallUpdate.Status == sdk.ToolCallStatusInProgress
	})
	proctest.WaitUntil(t, "the command's process", func() bool { return proctest.Running(marker) })
	start := time.Now()
	if err := h.conn.Cancel(context.Background(), sdk.CancelNotification{SessionId: id}); err != nil {
		t.Fatal(err)
	}
	resp := waitResponse(t, done)
	if resp.StopReason != sdk.StopReasonCancelled {
		t.Fatalf("stop reason %q", resp.StopReason)
	}
	if took := time.Since(start); took > 5*time.Second {
		t.Errorf("the cancel took %v", took)
	}
	if f := finalUpdate(h.client.snapshot(), "b1"); f == nil || *f.Status != sdk.ToolCallStatusFailed {
		t.Errorf("the cancelled call: %+v", f)
	}
	if proctest.Running(marker) {
		t.Error("the command outlived the cancel")
	}
	if r := h.prompt(id, "again"); r.StopReason != sdk.StopReasonEndTurn {
		t.Errorf("the next prompt: %s", r.StopReason)
	}
}

// A permission request pending at the cancel is answered "cancelled" by the client;
// the call fails and the prompt answers "cancelled".
func TestCancelPendingPermission(t *testing.T) {
	m := scripted.New(bashStep("b1", "touch should-not-exist"))
	h := start(t, m, sdk.ClientCapabilities{})
	asked := make(chan struct{})
	release := make(chan struct{})
	h.client.answer = func(sdk.RequestPermissionRequest) (sdk.RequestPermissionResponse, error) {
		close(asked)
		<-release
		return sdk.RequestPermissionResponse{Outcome: sdk.NewRequestPermissionOutcomeCancelled()}, nil
	}
	id := h.newSession()
	done := h.promptAsync(id, "touch")
	testenv.Recv(t, asked, testenv.Bound, "the permission request")
	if err := h.conn.Cancel(context.Background(), sdk.CancelNotification{SessionId: id}); err != nil {
		t.Fatal(err)
	}
	close(release)
	if r := waitResponse(t, done); r.StopReason != sdk.StopReasonCancelled {
		t.Fatalf("stop reason %q", r.StopReason)
	}
	if f := finalUpdate(h.client.snapshot(), "b1"); f == nil || *f.Status != sdk.ToolCallStatusFailed {
		t.Errorf("call: %+v", f)
	}
	if _, err := os.Stat(filepath.Join(h.dir, "should-not-exist")); err == nil {
		t.Error("the refused command ran")
	}
}

// A new prompt while one runs cancels the running one first, which answers
// "cancelled"; the new one runs to its end.
func TestNewPromptCancelsRunning(t *testing.T) {
	m := scripted.New(scripted.Step{Text: "thinking…", BlockUntilCancel: true}, scripted.Step{Text: "second answer"})
	h := start(t, m, sdk.ClientCapabilities{})
	id := h.newSession()
	first := h.promptAsync(id, "first")
	h.client.waitFor(t, "the first turn's text", func(u sdk.SessionUpdate) bool {
		return u.AgentMessageChunk != nil && u.AgentMessageChunk.Content.Text.Text == "thinking…"
	})
	second := h.promptAsync(id, "second")
	if r := waitResponse(t, first); r.StopReason != sdk.StopReasonCancelled {
		t.Errorf("first: %q", r.StopReason)
	}
	if r := waitResponse(t, second); r.StopReason != sdk.StopReasonEndTurn {
		t.Errorf("second: %q", r.StopReason)
	}
	if !strings.Contains(agentText(h.client.snapshot()), "second answer") {
		t.Error("the second turn's answer is missing")
	}
}

// session/close ends a running turn and frees the session.
func TestCloseSession(t *testing.T) {
	m := scripted.New(scripted.Step{Text: "…", BlockUntilCancel: true})
	h := start(t, m, sdk.ClientCapabilities{})
	id := h.newSession()
	done := h.promptAsync(id, "run")
	h.client.waitFor(t, "text", func(u sdk.SessionUpdate) bool { return u.AgentMessageChunk != nil })
	if _, err := h.conn.CloseSession(context.Background(), sdk.CloseSessionRequest{SessionId: id}); err != nil {
		t.Fatal(err)
	}
	if r := waitResponse(t, done); r.StopReason != sdk.StopReasonCancelled {
		t.Errorf("the running turn: %q", r.StopReason)
	}
	if _, err := h.conn.Prompt(context.Background(), sdk.PromptRequest{SessionId: id, Prompt: []sdk.ContentBlock{sdk.TextBlock("hi")}}); err == nil {
		t.Error("a closed session took a prompt")
	}
}
