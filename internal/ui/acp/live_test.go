package acp

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	sdk "github.com/coder/acp-go-sdk"

	"github.com/gantry-dev/gantry/internal/llm/scripted"
)

// A running command's output reaches the editor as it comes, as the call's content;
// the result replaces it when the call ends.
func TestLiveOutputOfARunningCommand(t *testing.T) {
	gate := filepath.Join(t.TempDir(), "go-on")
	cmd := "echo first-line; while [ ! -e " + gate + " ]; do sleep 0.05; done; echo second-line"
	m := scripted.New(bashStep("b1", cmd), scripted.Step{Text: "done"})
	h := start(t, m, sdk.ClientCapabilities{})
	id := h.newSession()
	done := h.promptAsync(id, "run it")
	h.client.waitFor(t, "the first line while the command runs", func(u sdk.SessionUpdate) bool {
		if u.ToolCallUpdate == nil || u.ToolCallUpdate.ToolCallId != "b1" || u.ToolCallUpdate.Status != nil {
			return false
		}
		for _, c := range u.ToolCallUpdate.Content {
			if c.Content != nil && c.Content.Content.Text != nil && strings.Contains(c.Content.Content.Text.Text, "first-line") {
				return true
			}
		}
		return false
	})
	if err := os.WriteFile(gate, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	if r := waitResponse(t, done); r.StopReason != sdk.StopReasonEndTurn {
		t.Fatalf("stop reason %q", r.StopReason)
	}
	f := finalUpdate(h.client.snapshot(), "b1")
	if f == nil || *f.Status != sdk.ToolCallStatusCompleted {
		t.Fatalf("the call's last update: %+v", f)
	}
	var text string
	for _, c := range f.Content {
		if c.Content != nil && c.Content.Content.Text != nil {
			text += c.Content.Content.Text.Text
		}
	}
	if !strings.Contains(text, "first-line") || !strings.Contains(text, "second-line") {
		t.Errorf("the result's content: %q", text)
	}
}
