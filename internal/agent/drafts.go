package agent

import (
	"cmp"
	"encoding/json"
	"strings"
	"time"

	"github.com/gantry-dev/gantry/internal/face"
	"github.com/gantry-dev/gantry/internal/llm"
	"github.com/gantry-dev/gantry/internal/tool"
)

// draftEvery is how often at most a call being written is shown again (ToolDrafting):
// a 100 KB write streamed in 10 000 pieces is a few dozen events, not 10 000.
const draftEvery = 50 * time.Millisecond

// drafts turns the pieces of the tool calls a response is writing (llm.DeltaToolInput)
// into ToolDrafting events, and the call made whole (llm.DeltaToolCall) into its last
// draft. They are sent from the stream's callback, never after the response ends: a
// piece that came within draftEvery of the last event waits for the next piece or for
// its call to be whole.
type drafts struct {
	a     *Agent
	calls map[int]*draft
}

// draft is one call being written.
type draft struct {
	id, name string
	input    strings.Builder
	sent     time.Time
	unsent   bool // pieces came since the last event
	whole    bool
}

func (a *Agent) newDrafts() *drafts { return &drafts{a: a, calls: map[int]*draft{}} }

// piece takes a DeltaToolInput.
func (ds *drafts) piece(d llm.Delta) {
	if d.ToolCall == nil {
		return
	}
	c := ds.calls[d.Index]
	if c == nil {
		c = &draft{}
		ds.calls[d.Index] = c
	}
	if c.whole {
		return
	}
	c.id, c.name = cmp.Or(d.ToolCall.ToolCallID, c.id), cmp.Or(d.ToolCall.ToolName, c.name)
	c.input.WriteString(d.Text)
	c.unsent = true
	if time.Since(c.sent) >= draftEvery {
		ds.send(c, json.RawMessage(llm.ClosePartialJSON(c.input.String())))
	}
}

// whole takes a DeltaToolCall: the call's last draft, with its whole arguments, when
// something of them was not shown yet.
func (ds *drafts) whole(d llm.Delta) {
	c := ds.calls[d.Index]
	if c == nil || c.whole || d.ToolCall == nil {
		return
	}
	c.whole = true
	if !c.unsent {
		return
	}
	c.id = cmp.Or(d.ToolCall.ToolCallID, c.id)
	input := d.ToolCall.Input
	if d.ToolCall.RawInput != "" { // not JSON: as far as it can be read
		input = json.RawMessage(llm.ClosePartialJSON(d.ToolCall.RawInput))
	}
	ds.send(c, input)
}

// reset forgets the calls of a failed attempt (a retry follows).
func (ds *drafts) reset() { clear(ds.calls) }

func (ds *drafts) send(c *draft, input json.RawMessage) {
	c.sent, c.unsent = time.Now(), false
	if len(input) == 0 {
		input = json.RawMessage("{}")
	}
	ds.a.emit(face.ToolDrafting{CallID: c.id, Call: ds.a.draftCall(c.name, input), Input: input,
		Bytes: c.input.Len(), Lines: longestLines(input), Whole: c.whole})
}

// draftCall is what faces show of a call of name with the arguments so far: its
// tool's reading of them, as for the call when it starts (an unknown tool, or one
// above the session's level, by its name alone).
func (a *Agent) draftCall(name string, input json.RawMessage) tool.Call {
	t, ok := a.Tools.Lookup(name)
	if !ok || (a.MaxLevel != nil && t.Level() > a.MaxLevel()) {
		return tool.Unknown(name)
	}
	return tool.Draft(t, a.Env, input)
}

// longestLines is the number of lines of the longest string in a JSON value (0 when
// it has none).
func longestLines(input json.RawMessage) int {
	var v any
	if json.Unmarshal(input, &v) != nil {
		return 0
	}
	longest := ""
	var walk func(v any)
	walk = func(v any) {
		switch x := v.(type) {
		case string:
			if len(x) > len(longest) {
				longest = x
			}
		case []any:
			for _, e := range x {
				walk(e)
			}
		case map[string]any:
			for _, e := range x {
				walk(e)
			}
		}
	}
	walk(v)
	if longest == "" {
		return 0
	}
	return strings.Count(strings.TrimSuffix(longest, "\n"), "\n") + 1
}
