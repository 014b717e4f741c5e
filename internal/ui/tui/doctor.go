package tui

import (
	tea "charm.land/bubbletea/v2"

	"github.com/gantry-dev/gantry/internal/app"
)

// cmdDoctor prints what `gantry doctor` prints for the session's folder: what is in
// force, what was read from gantry's, Claude Code's and Codex's files, and what was
// ignored and why (marked ⚠). It reads files only; nothing is started.
func (m *Model) cmdDoctor(string) tea.Cmd {
	rows, err := app.Doctor(m.app.Cwd())
	if err != nil {
		m.print(m.st.r(m.st.warn, "⚠ doctor: "+err.Error()))
		return nil
	}
	lines := []string{m.st.r(m.st.bold, "What is in force here, and what was read")}
	var cells [][]string
	for _, r := range rows {
		v := r.Value
		if r.Problem {
			v = "⚠ " + v
		}
		cells = append(cells, []string{r.Name, v})
	}
	m.print(append(lines, table(cells, m.width, "  ")...)...)
	return nil
}
