package config

import (
	"slices"
	"strings"
	"testing"
)

// The .mcp.json servers a project's or user's Claude settings disable are left out,
// and when enabledMcpjsonServers names some, only those are used; doctor's list
// (MCPSkipped) says why. "streamable-http" is read as http.
func TestClaudeMcpjsonChoice(t *testing.T) {
	mcp := `{
  "mcpServers": {
    "supabase": {"command": "npx", "args": ["-y", "@supabase/mcp-server-supabase"]},
    "playwright": {"command": "npx", "args": ["@playwright/mcp@latest"]},
    "linear": {"type": "streamable-http", "url": "https://mcp.linear.app/mcp"},
    "obsidian": {"command": "uvx", "args": ["mcp-obsidian"]}
  }
}`
	c, err := claudeProject(t, map[string]string{
		".mcp.json":             mcp,
		"~/settings.json":       `{"enabledMcpjsonServers": ["supabase", "playwright", "linear"]}`,
		".claude/settings.json": `{"disabledMcpjsonServers": ["playwright"]}`,
	})
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for n := range c.MCPServers {
		names = append(names, n)
	}
	slices.Sort(names)
	if strings.Join(names, " ") != "linear supabase" {
		t.Errorf("servers %q, want linear and supabase", names)
	}
	if s := c.MCPServers["linear"]; s.Type != "http" || s.Problem != "" {
		t.Errorf("linear %+v: streamable-http is http", s)
	}
	skipped := strings.Join(c.MCPSkipped, "\n")
	for _, want := range []string{"playwright (", "disabledMcpjsonServers in ", "obsidian (", "enabledMcpjsonServers (in "} {
		if !strings.Contains(skipped, want) {
			t.Errorf("MCPSkipped %q lacks %q", skipped, want)
		}
	}
	if strings.Contains(skippedOf(c), "disabledMcpjsonServers") {
		t.Errorf("the key is said to be unused: %q", skippedOf(c))
	}

	// enableAllProjectMcpServers beside the list (as real files have it) uses every
	// server but the disabled ones.
	c, err = claudeProject(t, map[string]string{
		".mcp.json":       mcp,
		"~/settings.json": `{"enableAllProjectMcpServers": true, "enabledMcpjsonServers": ["supabase"], "disabledMcpjsonServers": ["obsidian"]}`,
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(c.MCPServers) != 3 || c.MCPServers["obsidian"].Command != "" {
		t.Errorf("servers %v", c.MCPServers)
	}

	// A project's enableAllProjectMcpServers is said to be covered by gantry's folder
	// trust, and in a folder not trusted starts nothing.
	root := claudeFolder(t, map[string]string{".mcp.json": mcp, ".claude/settings.json": `{"enableAllProjectMcpServers": true}`})
	c, err = LoadHeld(root)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(skippedOf(c), "enableAllProjectMcpServers is covered by gantry's folder trust") || len(c.MCPServers) != 0 {
		t.Errorf("notices %q, servers %v", skippedOf(c), c.MCPServers)
	}
}
