package config

import (
	"fmt"
	"slices"
	"strings"
)

// mcpChoice is what the Claude Code settings files say of the project's .mcp.json
// servers, merged over the files as Claude Code merges their lists: the servers
// disabledMcpjsonServers names are left out; when an enabledMcpjsonServers names
// some and no file has enableAllProjectMcpServers, only those are used. Unlike the
// approvals of a folder not trusted (Config.mcpApproved), these only take servers
// away, so every file counts, trusted or not.
type mcpChoice struct {
	enabled, disabled         []string
	enabledFrom, disabledFrom map[string]string // a name: the file that lists it
	all                       bool              // some file has enableAllProjectMcpServers
}

// take adds what the settings file at path says.
func (m *mcpChoice) take(path string, f *claudeSettingsFile) {
	m.all = m.all || f.EnableAllProjectMcpServers
	add := func(list *[]string, from *map[string]string, names []string) {
		for _, n := range names {
			if *from == nil {
				*from = map[string]string{}
			}
			if _, ok := (*from)[n]; !ok {
				*list = append(*list, n)
				(*from)[n] = path
			}
		}
	}
	add(&m.enabled, &m.enabledFrom, f.EnabledMcpjsonServers)
	add(&m.disabled, &m.disabledFrom, f.DisabledMcpjsonServers)
}

// chosen tells whether the .mcp.json server s is used; when not, it says why in
// c.MCPSkipped, for doctor.
func (m *mcpChoice) chosen(c *Config, s jsonServer) bool {
	if from, ok := m.disabledFrom[s.name]; ok {
		c.MCPSkipped = append(c.MCPSkipped, fmt.Sprintf("%s (%s): disabledMcpjsonServers in %s names it", s.name, s.server.From, from))
		return false
	}
	if len(m.enabled) > 0 && !m.all && !slices.Contains(m.enabled, s.name) {
		c.MCPSkipped = append(c.MCPSkipped, fmt.Sprintf("%s (%s): enabledMcpjsonServers (in %s) names only %s", s.name, s.server.From,
			strings.Join(m.files(), ", "), strings.Join(m.enabled, ", ")))
		return false
	}
	return true
}

// files are the files that list enabled servers, in their order.
func (m *mcpChoice) files() []string {
	var out []string
	for _, n := range m.enabled {
		if f := m.enabledFrom[n]; !slices.Contains(out, f) {
			out = append(out, f)
		}
	}
	return out
}
