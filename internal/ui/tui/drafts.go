package tui

import (
	"fmt"
	"strings"

	"github.com/gantry-dev/gantry/internal/face"
	"github.com/gantry-dev/gantry/internal/ui/termtext"
)

// liveDraft is a call the model is still writing (face.ToolDrafting), shown in the
// live area until it starts: its line as far as its arguments can be read (the
// command so far, the file written), how many lines its longest argument has so far,
// and the end of the code it will run.
type liveDraft struct {
	id    string
	line  string
	lines int
	code  []string
}

// draft shows or grows the draft of a call.
func (m *Model) draft(e face.ToolDrafting) {
	d := liveDraft{id: e.CallID, line: termtext.ToolLine(e.Call), lines: e.Lines}
	if c := e.Call.Code; c != nil {
		d.code = tailLines(c.Text, m.app.PreviewLines())
	}
	for i := range m.drafts {
		if m.drafts[i].id == e.CallID {
			m.drafts[i] = d
			return
		}
	}
	m.drafts = append(m.drafts, d)
}

// undraft drops the draft of a call that started (its ToolStarted line replaces it).
func (m *Model) undraft(id string) {
	for i := range m.drafts {
		if m.drafts[i].id == id {
			m.drafts = append(m.drafts[:i], m.drafts[i+1:]...)
			return
		}
	}
}

// draftLines are the live area's lines of the calls being written.
func (m *Model) draftLines() []string {
	var out []string
	for _, d := range m.drafts {
		line := "✎ " + clip(d.line, m.width-24)
		if d.lines > 1 {
			line += fmt.Sprintf(" · %d lines", d.lines)
		}
		out = append(out, m.st.r(m.st.dim, line+" (writing…)"))
		for _, l := range d.code {
			out = append(out, m.st.r(m.st.dim, "  "+clip(strings.TrimRight(l, " "), m.width-4)))
		}
	}
	return out
}
