package tui

import tea "charm.land/bubbletea/v2"

// cmdPlugin is /plugin: the enabled plugins, each with its version, scope, folder
// and description (gantry plugin add|remove changes them: docs/plugins.md).
func (m *Model) cmdPlugin(string) tea.Cmd {
	lines := []string{m.st.r(m.st.bold, "Plugins (gantry plugin add|list|remove; docs/plugins.md)")}
	for _, l := range m.app.PluginSummary() {
		lines = append(lines, "  "+l)
	}
	m.print(lines...)
	return nil
}
