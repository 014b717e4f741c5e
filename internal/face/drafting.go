package face

import (
	"encoding/json"

	"github.com/gantry-dev/gantry/internal/tool"
)

// ToolDrafting shows a tool call while the model is still writing its arguments,
// before its ToolStarted: the call as far as what came of its arguments can be read
// by the tool's definition (tool.Draft: at first the tool's name alone, then its title,
// a command so far, an eval cell's code so far), those arguments closed into JSON, and
// how much has come. It is sent at most 20 times a second per call while the arguments
// grow, and once more when they are whole; a retry (Retry) voids the drafts of the
// failed attempt. The call's ToolStarted (same CallID) replaces it; a call that never
// starts (the answer was cut) ends with the turn.
type ToolDrafting struct {
	CallID string
	tool.Call
	// Input is the arguments so far, closed into JSON ({} while nothing can be read).
	Input json.RawMessage
	// Bytes is the length of the arguments so far; Lines the lines of their longest
	// string (a file's content, a command), for a face that counts them.
	Bytes, Lines int
	// Whole says the arguments are complete: this is the call's last draft.
	Whole bool
}

func (ToolDrafting) event() {}
