package agent

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/gantry-dev/gantry/internal/face"
	"github.com/gantry-dev/gantry/internal/llm"
	"github.com/gantry-dev/gantry/internal/llm/scripted"
	"github.com/gantry-dev/gantry/internal/permission"
)

// A call's drafts come before its ToolStarted, grow, and the last is whole and
// titled as the call that starts.
func TestDraftsGrowBeforeTheCallStarts(t *testing.T) {
	p := scripted.New(scripted.Step{StreamInput: true, Calls: []scripted.Call{{ID: "c1", Name: "run", Input: `{"text":"go test ./internal/agent/ -run TestDrafts -count=1"}`}}},
		scripted.Step{Text: "done"})
	a, ev, _ := newAgent(t, p, permission.ModeYolo)
	a.Run(context.Background(), "go")
	var drafts []face.ToolDrafting
	started := false
	for _, e := range ev.ev {
		switch e := e.(type) {
		case face.ToolDrafting:
			if started {
				t.Fatalf("a draft after ToolStarted: %+v", e)
			}
			drafts = append(drafts, e)
		case face.ToolStarted:
			started = true
			if len(drafts) < 2 {
				t.Fatalf("drafts before the start: %+v", drafts)
			}
			first, last := drafts[0], drafts[len(drafts)-1]
			if first.CallID != "c1" || first.Bytes >= last.Bytes || first.Whole || !last.Whole {
				t.Fatalf("drafts do not grow to the whole call: first %+v, last %+v", first, last)
			}
			if last.Title != e.Title || last.Principal != e.Principal || string(last.Input) != string(e.Input) {
				t.Fatalf("last draft %+v, started %+v", last, e)
			}
		}
	}
	if !started {
		t.Fatal("no ToolStarted")
	}
}

// many streams a write's arguments in pieces of one character.
type many struct{ input string }

func (many) Name() string { return "many" }

func (m many) Stream(_ context.Context, req llm.Request, emit func(llm.Delta)) (llm.Response, error) {
	if len(req.Messages) > 1 {
		return llm.Response{Message: llm.Message{Content: []llm.Block{{Type: llm.BlockText, Text: "done"}}}}, nil
	}
	named := &llm.Block{Type: llm.BlockToolUse, ToolCallID: "w", ToolName: "write"}
	for i := range len(m.input) {
		emit(llm.Delta{Type: llm.DeltaToolInput, Text: m.input[i : i+1], ToolCall: named})
	}
	b := llm.Block{Type: llm.BlockToolUse, ToolCallID: "w", ToolName: "write", Input: json.RawMessage(m.input)}
	emit(llm.Delta{Type: llm.DeltaToolCall, ToolCall: &b})
	return llm.Response{Message: llm.Message{Content: []llm.Block{b}}, StopReason: "tool_use"}, nil
}

// A long input streamed in 20 000 pieces is a few drafts, the last one whole.
func TestDraftsAreCoalesced(t *testing.T) {
	text, _ := json.Marshal(strings.Repeat("a line of the file\n", 1000))
	input := fmt.Sprintf(`{"text":%s}`, text)
	start := time.Now()
	a, ev, _ := newAgent(t, many{input: input}, permission.ModeYolo)
	a.Run(context.Background(), "go")
	took := time.Since(start)
	var drafts []face.ToolDrafting
	for _, e := range ev.ev {
		if d, ok := e.(face.ToolDrafting); ok {
			drafts = append(drafts, d)
		}
	}
	if most := 2 + int(took/draftEvery); len(drafts) == 0 || len(drafts) > most {
		t.Fatalf("%d drafts for %d pieces in %v (at most %d)", len(drafts), len(input), took, most)
	}
	if last := drafts[len(drafts)-1]; !last.Whole || last.Lines != 1000 || last.Bytes != len(input) {
		t.Fatalf("last draft: whole %v, %d lines, %d bytes", last.Whole, last.Lines, last.Bytes)
	}
}
