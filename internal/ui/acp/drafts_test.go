package acp

import (
	"encoding/json"
	"strings"
	"testing"

	sdk "github.com/coder/acp-go-sdk"

	"github.com/gantry-dev/gantry/internal/llm/scripted"
)

// A call the model is still writing is the client's tool_call at once, pending, and
// its rawInput and title grow by updates before it runs; its start updates the same
// entry: one tool_call per call.
func TestDraftIsOnePendingToolCallThatGrows(t *testing.T) {
	m := scripted.New(
		scripted.Step{StreamInput: true, Calls: []scripted.Call{{ID: "w1", Name: "write_file",
			Input: `{"path":"new.txt","content":"one\ntwo\nthree\nfour\nfive\nsix\nseven\n"}`}}},
		scripted.Step{Text: "done"},
	)
	h := start(t, m, sdk.ClientCapabilities{})
	id := h.newSession()
	if r := h.prompt(id, "write it"); r.StopReason != sdk.StopReasonEndTurn {
		t.Fatalf("stop reason %q", r.StopReason)
	}
	us := h.client.snapshot()
	ev := callEvents(us, "w1")
	if len(ev) < 4 || ev[0] != "tool_call:pending" || ev[1] != "update" || ev[len(ev)-2] != "in_progress" || ev[len(ev)-1] != "completed" {
		t.Fatalf("events %v", ev)
	}
	var inputs []string // rawInput, as the client was told it
	var titles []string
	for _, u := range us {
		switch {
		case u.ToolCall != nil && u.ToolCall.ToolCallId == "w1":
			b, _ := json.Marshal(u.ToolCall.RawInput)
			inputs, titles = append(inputs, string(b)), append(titles, u.ToolCall.Title)
		case u.ToolCallUpdate != nil && u.ToolCallUpdate.ToolCallId == "w1" && u.ToolCallUpdate.RawInput != nil:
			b, _ := json.Marshal(u.ToolCallUpdate.RawInput)
			inputs = append(inputs, string(b))
			if u.ToolCallUpdate.Title != nil {
				titles = append(titles, *u.ToolCallUpdate.Title)
			}
		}
	}
	if len(inputs) < 2 || len(inputs[0]) >= len(inputs[len(inputs)-1]) || !strings.Contains(inputs[len(inputs)-1], "seven") {
		t.Errorf("rawInput did not grow to the whole call: %q", inputs)
	}
	if last := titles[len(titles)-1]; !strings.Contains(last, "new.txt") {
		t.Errorf("titles %q", titles)
	}
}
