package config

import (
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// A project's .codex/config.toml gives its [mcp_servers] over the user's Codex file,
// below Claude Code's: in a folder not trusted its servers are held back and the
// question names the file; trusted, they run, and what was read and not used (a
// server Codex turns off, one a file that wins replaces) is said in MCPSkipped. The
// file is one of those whose change asks for the trust again.
func TestCodexProjectConfigWaitsForTrust(t *testing.T) {
	e := newEnv(t)
	claudeHome(t, e)
	user := filepath.Join(e.home, ".codex", "config.toml")
	write(t, user, "[mcp_servers.docs]\ncommand = \"user-docs\"\n\n[mcp_servers.off]\ncommand = \"false\"\nenabled = false\n")
	project := filepath.Join(e.root, ".codex", "config.toml")
	write(t, project, "[mcp_servers.docs]\ncommand = \"project-docs\"\nargs = [\"--x\"]\n\n[mcp_servers.both]\ncommand = \"codex-both\"\n")
	mcpJSON := filepath.Join(e.root, ".mcp.json")
	write(t, mcpJSON, `{"mcpServers": {"both": {"command": "claude-both"}}}`)

	held, err := LoadHeld(e.root)
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"both: codex-both (" + project + ")", "docs: project-docs --x (" + project + ")", "both: claude-both"}
	if got := held.Held().Servers; !slices.Equal(got, want) {
		t.Errorf("held servers\n got %q\nwant %q", got, want)
	}
	if s := held.MCPServers["docs"]; s.Command != "user-docs" || len(held.MCPServers) != 1 {
		t.Errorf("not trusted, the servers are %v", held.MCPServers)
	}

	c, err := Load(e.root)
	if err != nil {
		t.Fatal(err)
	}
	if s := c.MCPServers["docs"]; s.Command != "project-docs" || s.From != project {
		t.Errorf("docs is %+v, want the project's", s)
	}
	if s := c.MCPServers["both"]; s.Command != "claude-both" {
		t.Errorf("both is %+v, want .mcp.json's", s)
	}
	for _, w := range []string{
		"off (" + user + "): turned off there (enabled = false)",
		"docs (" + user + "): the server of that name from " + project + " is used",
		"both (" + project + "): the server of that name from " + mcpJSON + ":1 is used",
	} {
		if !slices.Contains(c.MCPSkipped, w) {
			t.Errorf("skipped %q lacks %q", c.MCPSkipped, w)
		}
	}
	if len(c.MCPSkipped) != 3 || len(c.MCPProblems) != 0 {
		t.Errorf("skipped %q, problems %q", c.MCPSkipped, c.MCPProblems)
	}

	hashes, err := HashTrustFiles(e.root)
	if err != nil {
		t.Fatal(err)
	}
	if hashes[CodexProjectConfig] == "" {
		t.Errorf("the trust keeps no hash of %s: %v", CodexProjectConfig, hashes)
	}
	if strings.Contains(strings.Join(c.MCPProblems, " "), "config.toml") {
		t.Errorf("problems %q", c.MCPProblems)
	}
}
