package printmode

import "github.com/gantry-dev/gantry/internal/face"

// draftObject is stream-json's tool_drafting: a call the model is still writing, as far
// as its arguments so far can be read (see face.ToolDrafting). Text print mode shows
// nothing of it: the call's line comes with tool_started.
func draftObject(e face.ToolDrafting) map[string]any {
	return map[string]any{"type": "tool_drafting", "id": e.CallID, "name": e.Name, "title": e.Title, "principal": e.Principal,
		"level": e.Level.String(), "kind": string(e.Kind), "locations": e.Locations, "input": e.Input,
		"bytes": e.Bytes, "lines": e.Lines, "whole": e.Whole}
}
