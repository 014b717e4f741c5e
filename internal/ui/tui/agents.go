package tui

import tea "charm.land/bubbletea/v2"

// cmdAgents lists the agent definitions the agent tool offers, with where each came
// from.
func (m *Model) cmdAgents(string) tea.Cmd {
	defs := m.app.Agents()
	if len(defs) == 0 {
		m.print("no agent definitions found (.gantry/agents, .claude/agents and the user's: docs/config.md)")
		return nil
	}
	lines := []string{m.st.r(m.st.bold, "Agents (the model runs one with the agent tool's subagent_type)")}
	var rows [][]string
	for _, d := range defs {
		rows = append(rows, []string{d.Name, d.Description, d.Source})
	}
	m.print(append(lines, table(rows, m.width, "  ")...)...)
	return nil
}
