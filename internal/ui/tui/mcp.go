package tui

import (
	"fmt"
	"strings"

	tea "charm.land/bubbletea/v2"

	"github.com/gantry-dev/gantry/internal/app"
)

// cmdMCP lists the session's MCP servers: where each stands (connected, failed and
// why, starting), where it is defined, and its tools.
func (m *Model) cmdMCP(string) tea.Cmd {
	servers := m.app.MCPServers()
	if len(servers) == 0 {
		m.print("no MCP servers configured (.mcp.json, ~/.claude.json or mcpServers in gantry's config: docs/config.md)")
		return nil
	}
	lines := []string{m.st.r(m.st.bold, "MCP servers")}
	for _, s := range servers {
		var mark, state string
		switch s.State {
		case app.MCPConnected:
			mark, state = "✓", "connected"
		case app.MCPFailed:
			mark, state = m.st.r(m.st.warn, "✗"), m.st.r(m.st.warn, "failed")
		default:
			mark, state = "…", "starting"
		}
		lines = append(lines, "  "+mark+" "+m.st.r(m.st.bold, s.Name)+"  "+state+m.st.r(m.st.dim, " · "+s.Transport))
		rows := [][]string{{"from", s.From}, {target(s.Transport), s.Target}}
		switch {
		case s.State == app.MCPFailed:
			rows = append(rows, []string{"why", s.Reason})
		case s.State == app.MCPConnected && len(s.Tools) == 0:
			rows = append(rows, []string{"tools", "none"})
		case s.State == app.MCPConnected:
			rows = append(rows, []string{"tools", strings.Join(s.Tools, ", ")})
		}
		for i := range rows {
			rows[i][0] = m.st.r(m.st.dim, fmt.Sprintf("%-7s", rows[i][0])) // one column for every server
		}
		lines = append(lines, table(rows, m.width, "      ")...)
	}
	lines = append(lines, m.st.r(m.st.dim, "  permission rules name these tools: mcp__<server>__* for all of a server's (docs/permissions.md)"))
	m.print(lines...)
	return nil
}

// target names what Target is for a transport.
func target(transport string) string {
	if transport == "stdio" {
		return "command"
	}
	return "url"
}
