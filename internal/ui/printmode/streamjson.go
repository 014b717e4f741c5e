package print

import (
	"encoding/json"

	"github.com/gantry-dev/gantry/internal/face"
)

// streamJSON writes one JSON object per event. A subagent's events carry its id and
// label.
func (p *Printer) streamJSON(e face.Event) {
	if sub, ok := e.(face.FromSubagent); ok {
		if m := eventObject(sub.Event); m != nil {
			m["agent_id"], m["agent"] = sub.ID, sub.Label
			p.line(m)
		}
		return
	}
	if m := eventObject(e); m != nil {
		p.line(m)
	}
}

// eventObject is the JSON object of an event, nil for events stream-json omits.
func eventObject(e face.Event) map[string]any {
	switch e := e.(type) {
	case face.TextDelta:
		return map[string]any{"type": "text_delta", "text": e.Text}
	case face.ThinkingDelta:
		return map[string]any{"type": "thinking_delta", "text": e.Text}
	case face.Notice:
		return map[string]any{"type": "notice", "text": e.Text}
	case face.TodoList:
		items := e.Items
		if items == nil {
			items = []face.TodoItem{}
		}
		return map[string]any{"type": "todo_list", "items": items}
	case face.Retry:
		return map[string]any{"type": "retry", "attempt": e.Attempt, "reason": e.Reason}
	case face.ToolStarted:
		input := e.Input
		if !json.Valid(input) {
			input = json.RawMessage(`{}`)
		}
		return map[string]any{"type": "tool_started", "id": e.CallID, "name": e.Name, "principal": e.Principal,
			"level": e.Level.String(), "kind": string(e.Kind), "locations": e.Locations, "input": input}
	case face.ToolFinished:
		m := map[string]any{"type": "tool_finished", "id": e.CallID, "name": e.Name, "is_error": e.Result.IsError,
			"refused": e.Refused, "output": e.Result.Text, "duration_us": e.Duration.Microseconds()}
		if e.Result.Display.Diff != "" {
			m["diff"] = e.Result.Display.Diff
		}
		if len(e.Result.Images) > 0 {
			m["images"] = len(e.Result.Images)
		}
		return m
	case face.TurnUsage:
		return map[string]any{"type": "usage", "model": e.Model, "usage": e.Usage, "cost_usd": e.Cost,
			"session_usage": e.SessionUsage, "session_cost_usd": e.SessionCost}
	case face.StepEnded:
		return map[string]any{"type": "step_ended", "step": e.Step, "counters": e.Counters}
	case face.TurnEnded:
		m := map[string]any{"type": "turn_ended", "stop_reason": e.StopReason, "steps": e.Steps, "counters": e.Counters}
		if e.Err != nil {
			m["error"] = e.Err.Error()
		}
		return m
	}
	return nil
}
