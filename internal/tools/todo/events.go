package todo

import (
	"encoding/json"

	"github.com/gantry-dev/gantry/internal/face"
)

// EventKind is the kind of the session event that holds the whole list after a change.
const EventKind = "todo_list"

// Recorder stores session events; the session store implements it.
type Recorder interface {
	AppendEvent(kind string, payload any) error
}

// event is the payload of a "todo_list" event.
type event struct {
	Items []face.TodoItem `json:"items"`
}

// FromEvents returns the list held by the last of the "todo_list" payloads that
// decodes (nil when none does), for Restore on resume.
func FromEvents(payloads []json.RawMessage) []face.TodoItem {
	for i := len(payloads) - 1; i >= 0; i-- {
		var e event
		if err := json.Unmarshal(payloads[i], &e); err == nil && e.Items != nil {
			return e.Items
		}
	}
	return nil
}
