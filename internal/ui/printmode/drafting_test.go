package printmode

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"

	"github.com/gantry-dev/gantry/internal/face"
)

// A call being written is a tool_drafting line in stream-json, and nothing in text.
func TestDraftingIsStreamJSONOnly(t *testing.T) {
	events := []face.Event{
		face.ToolDrafting{CallID: "1", Call: call("bash", "🛠️", "ls"), Input: json.RawMessage(`{"command":"ls"}`), Bytes: 15, Lines: 1},
		face.ToolDrafting{CallID: "1", Call: call("bash", "🛠️", "ls -la"), Input: json.RawMessage(`{"command":"ls -la"}`), Bytes: 19, Lines: 1, Whole: true},
		face.ToolStarted{CallID: "1", Call: call("bash", "🛠️", "ls -la"), Input: json.RawMessage(`{"command":"ls -la"}`)},
	}
	var text, js bytes.Buffer
	for format, out := range map[Format]*bytes.Buffer{FormatText: &text, FormatStreamJSON: &js} {
		p := New(out, Options{Format: format})
		for _, e := range events {
			p.Handle(e)
		}
		p.Finish(face.TurnEnded{StopReason: "end_turn"})
	}
	if strings.Count(text.String(), "ls -la") != 1 || strings.Contains(text.String(), "bash: ls\n") {
		t.Errorf("text shows the drafts:\n%s", text.String())
	}
	var drafts []map[string]any
	for _, line := range strings.Split(strings.TrimSpace(js.String()), "\n") {
		var m map[string]any
		if err := json.Unmarshal([]byte(line), &m); err != nil {
			t.Fatalf("not JSON: %q", line)
		}
		if m["type"] == "tool_drafting" {
			drafts = append(drafts, m)
		}
	}
	if len(drafts) != 2 || drafts[0]["id"] != "1" || drafts[0]["principal"] != "ls" || drafts[1]["whole"] != true ||
		drafts[1]["input"].(map[string]any)["command"] != "ls -la" || drafts[1]["bytes"] != float64(19) {
		t.Errorf("tool_drafting lines: %v", drafts)
	}
}
