package tui

import (
	"strings"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"

	"github.com/gantry-dev/gantry/internal/ui/tui/complete"
)

// completion is the list under the input box for @files, @skill: names and /commands.
type completion struct {
	items []complete.Candidate
	at    int
	start int    // where the token being completed starts in the input
	token string // the kind and prefix completed, to drop stale results
}

func (c *completion) active() bool { return len(c.items) > 0 }

// command reports whether the list offers slash commands.
func (c *completion) command() bool { return c.active() && c.items[c.at].Kind == complete.KindCommand }

func (c *completion) close() { c.items, c.at = nil, 0 }

func (c *completion) move(d int) {
	if len(c.items) > 0 {
		c.at = (c.at + d + len(c.items)) % len(c.items)
	}
}

// cursorOffset is the input's cursor as a byte offset into its value.
func cursorOffset(m *Model) int {
	lines := strings.Split(m.input.Value(), "\n")
	off := 0
	for i := 0; i < m.input.Line() && i < len(lines); i++ {
		off += len(lines[i]) + 1
	}
	if m.input.Line() < len(lines) {
		col := []rune(lines[m.input.Line()])
		off += len(string(col[:min(m.input.Column(), len(col))]))
	}
	return off
}

// filesMsg carries the file candidates found in the background for a token.
type filesMsg struct {
	token string
	items []complete.Candidate
}

// refresh recomputes the candidates for the token under the cursor. Files are
// looked for in the background (a walk of a large project can take up to 100 ms,
// too long for a key press): the returned command delivers them as a filesMsg.
func (c *completion) refresh(m *Model) tea.Cmd {
	value := m.input.Value()
	cur := cursorOffset(m)
	start, kind, prefix := complete.Token(value, cur)
	c.start = start
	c.token = kind + ":" + prefix
	var cmd tea.Cmd
	switch kind {
	case complete.KindFile:
		root, token := m.app.Cwd(), c.token
		cmd = func() tea.Msg { return filesMsg{token, complete.Files(root, prefix, 8)} }
	case complete.KindSkill:
		var skills []complete.Skill
		for _, s := range m.app.Skills() {
			skills = append(skills, complete.Skill{Name: s.Name, Description: s.Description})
		}
		c.items = complete.Skills(skills, prefix)
	case complete.KindCommand:
		var cmds []complete.Command
		for _, k := range commands {
			cmds = append(cmds, complete.Command{Name: k.name, Description: k.about, Hint: k.hint})
		}
		for _, s := range m.app.Skills() {
			cmds = append(cmds, complete.Command{Name: s.Name, Description: "skill: " + s.Description})
		}
		for _, c := range m.app.Commands() {
			cmds = append(cmds, complete.Command{Name: c.Name, Description: c.Description, Hint: c.ArgumentHint})
		}
		c.items = complete.Commands(cmds, prefix)
	default:
		c.items = nil
	}
	c.trim()
	return cmd
}

// files shows the candidates found for a token, unless the input moved on.
func (c *completion) files(msg filesMsg) {
	if msg.token == c.token {
		c.items = msg.items
		c.trim()
	}
}

func (c *completion) trim() {
	if len(c.items) > 8 {
		c.items = c.items[:8]
	}
	if c.at >= len(c.items) {
		c.at = 0
	}
}

// accept puts the chosen candidate into the input.
func (c *completion) accept(m *Model) {
	if !c.active() {
		return
	}
	value, _ := complete.Apply(m.input.Value(), cursorOffset(m), c.start, c.items[c.at])
	m.input.SetValue(value)
	c.close()
	if cmd := c.refresh(m); cmd != nil { // a folder goes on completing
		c.files(cmd().(filesMsg))
	}
}

// candidateText is what the list shows of a candidate.
func candidateText(it complete.Candidate) string {
	if it.Display != "" {
		return it.Display
	}
	return it.Text
}

func (c *completion) view(m *Model) string {
	if !c.active() {
		return ""
	}
	// Names and details in two columns, one line per candidate: a name is cut at half
	// the width, a detail at what is left of the line.
	nameW := 0
	for _, it := range c.items {
		nameW = max(nameW, ansi.StringWidth(candidateText(it)))
	}
	nameW = min(nameW, max(m.width/2-2, 8))
	lines := make([]string, len(c.items))
	for i, it := range c.items {
		name := ansi.Truncate(candidateText(it), nameW, "…")
		line := name
		if room := m.width - 2 - nameW - 3; it.Detail != "" && room >= 8 {
			line += strings.Repeat(" ", nameW-ansi.StringWidth(name)+2) + m.st.r(m.st.dim, ansi.Truncate(it.Detail, room, "…"))
		}
		if i == c.at {
			lines[i] = m.st.r(m.st.selected, "› ") + line
		} else {
			lines[i] = "  " + line
		}
	}
	return strings.Join(lines, "\n")
}
