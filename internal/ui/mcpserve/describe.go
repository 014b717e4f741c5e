package mcpserve

import (
	"encoding/json"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/gantry-dev/gantry/internal/tool"
)

// describe is what a client lists of t, all from its definition: its name, its label
// as the title, its description and argument schema as the model reads them, and
// hints from its level and kind — read tools change nothing; exec tools may destroy
// and reach outside (a command runs what it likes); write tools change files in place,
// each call again; fetch tools reach the open world.
func describe(t tool.Tool) *mcp.Tool {
	spec := t.Spec()
	info := t.Info()
	yes, no := true, false
	ann := &mcp.ToolAnnotations{Title: tool.LabelOf(t)}
	switch info.Level {
	case tool.LevelRead:
		ann.ReadOnlyHint = true
		ann.IdempotentHint = true
		ann.OpenWorldHint = &no
		if info.Kind == tool.KindFetch {
			ann.OpenWorldHint = &yes
		}
	case tool.LevelWrite:
		ann.DestructiveHint = &yes
		ann.OpenWorldHint = &no
	default:
		ann.DestructiveHint = &yes
		ann.OpenWorldHint = &yes
	}
	return &mcp.Tool{
		Name:        spec.Name,
		Title:       tool.LabelOf(t),
		Description: spec.Description,
		InputSchema: json.RawMessage(spec.Schema),
		Annotations: ann,
	}
}

// result is a tool's result as MCP carries it: its text, its images, and what the
// tool said of it for faces that a client may use — the files it changed, the place
// it points at, the diagnostics its writes introduced — as structured content.
func result(r tool.Result) *mcp.CallToolResult {
	out := &mcp.CallToolResult{IsError: r.IsError}
	if r.Text != "" || len(r.Images) == 0 {
		out.Content = append(out.Content, &mcp.TextContent{Text: r.Text})
	}
	for _, im := range r.Images {
		out.Content = append(out.Content, &mcp.ImageContent{Data: im.Data, MIMEType: im.MediaType})
	}
	if s := structured(r); s != nil {
		out.StructuredContent = s
	}
	return out
}

type change struct {
	Path    string `json:"path"`
	Created bool   `json:"created,omitempty"`
	Deleted bool   `json:"deleted,omitempty"`
}

type location struct {
	Path string `json:"path"`
	Line int    `json:"line,omitempty"`
}

type details struct {
	Changed     []change  `json:"changed,omitempty"`
	Location    *location `json:"location,omitempty"`
	Diagnostics []string  `json:"diagnostics,omitempty"`
	Blocked     []blocked `json:"blocked,omitempty"`
}

type blocked struct {
	Rule    string `json:"rule"`
	Command string `json:"command"`
}

func structured(r tool.Result) *details {
	d := details{Diagnostics: r.Display.Diagnostics}
	for _, c := range r.Display.Changes {
		d.Changed = append(d.Changed, change{Path: c.Path, Created: c.Created, Deleted: c.Deleted})
	}
	if l := r.Display.Location; l != nil {
		d.Location = &location{Path: l.Path, Line: l.Line}
	}
	for _, b := range r.Blocked {
		d.Blocked = append(d.Blocked, blocked{Rule: b.Rule, Command: b.Command})
	}
	if d.Changed == nil && d.Location == nil && d.Diagnostics == nil && d.Blocked == nil {
		return nil
	}
	return &d
}

// failure is a result that says one sentence of what went wrong.
func failure(s string) *mcp.CallToolResult {
	return &mcp.CallToolResult{IsError: true, Content: []mcp.Content{&mcp.TextContent{Text: s}}}
}
