package printmode

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
	case face.SessionStarted:
		tools := e.Tools
		if tools == nil {
			tools = []string{}
		}
		return map[string]any{"type": "system", "subtype": "init", "schema_version": SchemaVersion, "session_id": e.SessionID, "model": e.Model, "cwd": e.Cwd,
			"tools": tools, "permission_mode": string(e.Mode), "provider": e.Provider, "resumed": e.Resumed}
	case face.ModeChanged:
		return map[string]any{"type": "mode_changed", "mode": string(e.Mode), "previous": string(e.Previous)}
	case face.ModelChanged:
		return map[string]any{"type": "model_changed", "model": e.Model}
	case face.TextDelta:
		return map[string]any{"type": "text_delta", "text": e.Text}
	case face.ThinkingDelta:
		return map[string]any{"type": "thinking_delta", "text": e.Text}
	case face.Notice:
		m := map[string]any{"type": "notice", "text": e.Text}
		if e.Info {
			m["info"] = true
		}
		return m
	case face.ExecBlocked:
		return map[string]any{"type": "exec_blocked", "tool_use_id": e.CallID, "rule": e.Rule, "command": e.Command}
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
		m := map[string]any{"type": "tool_started", "id": e.CallID, "name": e.Name, "title": e.Title, "principal": e.Principal,
			"level": e.Level.String(), "kind": string(e.Kind), "locations": e.Locations, "input": input}
		if e.Note != "" {
			m["note"] = e.Note
		}
		return m
	case face.ToolDrafting:
		return draftObject(e)
	case face.ToolRunning:
		return map[string]any{"type": "tool_running", "id": e.CallID, "name": e.Name}
	case face.ToolFinished:
		m := map[string]any{"type": "tool_finished", "id": e.CallID, "name": e.Name, "is_error": e.Result.IsError,
			"refused": e.Refused, "output": e.Result.Text, "duration_us": e.Duration.Microseconds()}
		if e.Result.Display.Diff != "" {
			m["diff"] = e.Result.Display.Diff
		}
		if len(e.Result.Display.Diagnostics) > 0 {
			m["diagnostics"] = e.Result.Display.Diagnostics
		}
		if len(e.Result.Images) > 0 {
			m["images"] = len(e.Result.Images)
		}
		if e.Cancelled {
			m["cancelled"] = true
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
		if e.StoreErr != nil {
			m["store_error"] = e.StoreErr.Error()
		}
		return m
	}
	return nil
}
