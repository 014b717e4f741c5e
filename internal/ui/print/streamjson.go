package print

import (
	"encoding/json"

	"github.com/gantry-dev/gantry/internal/face"
)

// streamJSON writes one JSON object per event. Deltas are written as they come.
func (p *Printer) streamJSON(e face.Event) {
	switch e := e.(type) {
	case face.TextDelta:
		p.line(map[string]any{"type": "text_delta", "text": e.Text})
	case face.ThinkingDelta:
		p.line(map[string]any{"type": "thinking_delta", "text": e.Text})
	case face.Notice:
		p.line(map[string]any{"type": "notice", "text": e.Text})
	case face.Retry:
		p.line(map[string]any{"type": "retry", "attempt": e.Attempt, "reason": e.Reason})
	case face.ToolStarted:
		input := e.Input
		if !json.Valid(input) {
			input = json.RawMessage(`{}`)
		}
		p.line(map[string]any{"type": "tool_started", "id": e.CallID, "name": e.Name, "principal": e.Principal,
			"level": e.Level.String(), "kind": string(e.Kind), "locations": e.Locations, "input": input})
	case face.ToolFinished:
		m := map[string]any{"type": "tool_finished", "id": e.CallID, "name": e.Name, "is_error": e.Result.IsError,
			"refused": e.Refused, "output": e.Result.Text, "duration_us": e.Duration.Microseconds()}
		if e.Result.Display.Diff != "" {
			m["diff"] = e.Result.Display.Diff
		}
		if len(e.Result.Images) > 0 {
			m["images"] = len(e.Result.Images)
		}
		p.line(m)
	case face.TurnUsage:
		p.line(map[string]any{"type": "usage", "model": e.Model, "usage": e.Usage, "cost_usd": e.Cost,
			"session_usage": e.SessionUsage, "session_cost_usd": e.SessionCost})
	case face.StepEnded:
		p.line(map[string]any{"type": "step_ended", "step": e.Step, "counters": e.Counters})
	case face.TurnEnded:
		m := map[string]any{"type": "turn_ended", "stop_reason": e.StopReason, "steps": e.Steps, "counters": e.Counters}
		if e.Err != nil {
			m["error"] = e.Err.Error()
		}
		p.line(m)
	}
}
