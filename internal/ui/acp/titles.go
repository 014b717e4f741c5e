package acp

import (
	"encoding/json"

	sdk "github.com/coder/acp-go-sdk"

	"github.com/gantry-dev/gantry/internal/tool"
)

// maxTitle bounds a tool call's title, in characters.
const maxTitle = 160

// title is the line an editor shows for a tool call: the tool's own title (a verb and
// what it acts on), on one line.
func title(c tool.Call) string {
	t := c.Title
	if t == "" {
		t = c.Name
	}
	return tool.OneLine(t, maxTitle)
}

func oneLine(s string) string { return tool.OneLine(s, 0) }

func locations(paths []string) []sdk.ToolCallLocation {
	out := make([]sdk.ToolCallLocation, 0, len(paths))
	for _, p := range paths {
		out = append(out, sdk.ToolCallLocation{Path: p})
	}
	return out
}

// rawJSON passes a tool's arguments on as they are, or null when they are not JSON.
func rawJSON(b json.RawMessage) any {
	if len(b) == 0 || !json.Valid(b) {
		return nil
	}
	return b
}
