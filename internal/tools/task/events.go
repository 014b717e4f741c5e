package task

import "encoding/json"

// EventKind is the kind of the session event that holds the whole board after a change.
const EventKind = "task_board"

// event is the payload of a "task_board" event.
type event struct {
	Tasks []Task `json:"tasks"`
}

// FromEvents returns the board held by the last of the "task_board" payloads that
// decodes (nil when none does), for Restore on resume.
func FromEvents(payloads []json.RawMessage) []Task {
	for i := len(payloads) - 1; i >= 0; i-- {
		var e event
		if err := json.Unmarshal(payloads[i], &e); err == nil && e.Tasks != nil {
			return e.Tasks
		}
	}
	return nil
}
