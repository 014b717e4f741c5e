package config

import (
	"path/filepath"
	"reflect"
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

// opencode's and Crush's files give their "mcp" servers in their own shapes — opencode
// local (command as a list, environment, {env:VAR}) and remote, its newer mcp.servers,
// JSONC with comments and trailing commas; Crush stdio and http with $VAR — the
// project's held until the folder is trusted, each named with its file and line.
// What a file turns off, what a file that wins replaces, and what gantry cannot take
// ($(…), keys it does not use) are said.
func TestOpencodeAndCrushMCPServers(t *testing.T) {
	e := newEnv(t)
	claudeHome(t, e)
	userOpencode := filepath.Join(e.home, ".config", "opencode", "opencode.json")
	write(t, userOpencode, `{
  "$schema": "https://opencode.ai/config.json",
  "mcp": {
    "notes": {"type": "local", "command": ["notes-mcp", "--dir", "{env:NOTES}"], "environment": {"LEVEL": "debug"}, "enabled": true},
    "off": {"type": "local", "command": ["false"], "enabled": false}
  }
}`)
	jsonc := filepath.Join(e.root, "opencode.jsonc")
	write(t, jsonc, `{
  // the project's servers
  "mcp": {
    "search": {
      "type": "remote",
      "url": "https://search.example.com//mcp", /* two slashes are not a comment */
      "headers": {"Authorization": "Bearer {env:SEARCH_TOKEN}",},
      "oauth": false,
      "timeout": 1500,
    },
    "shared": {"type": "local", "command": ["opencode-shared"]},
  },
}
`)
	v2 := filepath.Join(e.root, ".opencode", "opencode.json")
	write(t, v2, `{"mcp": {"servers": {
  "v2": {"type": "local", "command": ["v2-mcp"]},
  "v2off": {"type": "local", "command": ["v2-mcp"], "disabled": true}
}}}`)
	crush := filepath.Join(e.root, ".crush.json")
	write(t, crush, `{
  "$schema": "https://charm.land/crush.json",
  "mcp": {
    "fs": {"type": "stdio", "command": "node", "args": ["/srv/fs.js", "$HOME"], "env": {"TOKEN": "$FS_TOKEN"}, "timeout": 30},
    "gh": {"type": "http", "url": "https://api.githubcopilot.com/mcp/", "headers": {"Authorization": "Bearer $GH_PAT"}},
    "sub": {"type": "stdio", "command": "srv", "env": {"KEY": "$(pass show key)"}},
    "gone": {"type": "sse", "url": "http://127.0.0.1:1/sse", "disabled": true},
    "shared": {"type": "stdio", "command": "crush-shared", "disabled_tools": ["x"]}
  }
}`)
	mcpJSON := filepath.Join(e.root, ".mcp.json")
	write(t, mcpJSON, `{"mcpServers": {"gh": {"type": "http", "url": "https://claude.example.com/mcp"}}}`)

	held, err := LoadHeld(e.root)
	if err != nil {
		t.Fatal(err)
	}
	if len(held.MCPServers) != 1 || held.MCPServers["notes"].Command != "notes-mcp" {
		t.Errorf("not trusted, the servers are %v", held.MCPServers)
	}
	heldText := strings.Join(held.Held().Servers, "\n")
	for _, w := range []string{
		"search: https://search.example.com//mcp (" + jsonc + ":4)",
		"v2: v2-mcp (" + v2 + ":2)",
		"fs: node /srv/fs.js ${HOME} (" + crush + ":4)",
		"gh: https://claude.example.com/mcp",
	} {
		if !strings.Contains(heldText, w) {
			t.Errorf("held servers lack %q:\n%s", w, heldText)
		}
	}

	c, err := Load(e.root)
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]MCPServer{
		"notes":  {Type: "stdio", Command: "notes-mcp", Args: []string{"--dir", "${NOTES}"}, Env: map[string]string{"LEVEL": "debug"}, From: userOpencode + ":4"},
		"search": {Type: "http", URL: "https://search.example.com//mcp", Headers: map[string]string{"Authorization": "Bearer ${SEARCH_TOKEN}"}, Timeout: 2, From: jsonc + ":4"},
		"v2":     {Type: "stdio", Command: "v2-mcp", From: v2 + ":2"},
		"fs":     {Type: "stdio", Command: "node", Args: []string{"/srv/fs.js", "${HOME}"}, Env: map[string]string{"TOKEN": "${FS_TOKEN}"}, Timeout: 30, From: crush + ":4"},
		"shared": {Type: "stdio", Command: "crush-shared", From: crush + ":8"},
		"gh":     {Type: "http", URL: "https://claude.example.com/mcp", From: mcpJSON + ":1"},
	}
	for name, w := range want {
		if got := c.MCPServers[name]; !reflect.DeepEqual(got, w) {
			t.Errorf("%s:\n got %#v\nwant %#v", name, got, w)
		}
	}
	if s := c.MCPServers["sub"]; !strings.Contains(s.Problem, crush+":6: MCP server \"sub\" runs a command in a value") {
		t.Errorf("sub's problem is %q", s.Problem)
	}
	for _, name := range []string{"off", "v2off", "gone"} {
		if _, ok := c.MCPServers[name]; ok {
			t.Errorf("the server %s turned off is there", name)
		}
	}
	for _, w := range []string{
		"off (" + userOpencode + ":5): turned off there",
		"v2off (" + v2 + ":3): turned off there",
		"gone (" + crush + ":7): turned off there",
		"shared (" + jsonc + ":11): the server of that name from " + crush + ":8 is used",
		"gh (" + crush + ":5): the server of that name from " + mcpJSON + ":1 is used",
	} {
		if !slices.Contains(c.MCPSkipped, w) {
			t.Errorf("skipped lacks %q:\n%s", w, strings.Join(c.MCPSkipped, "\n"))
		}
	}
	problems := strings.Join(c.MCPProblems, "\n")
	if !strings.Contains(problems, jsonc+": gantry does not use these keys of its MCP servers: oauth") ||
		!strings.Contains(problems, crush+": gantry does not use these keys of its MCP servers: disabled_tools") {
		t.Errorf("problems:\n%s", problems)
	}

	hashes, err := HashTrustFiles(e.root)
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range []string{"opencode.jsonc", ".opencode/opencode.json", ".crush.json"} {
		if hashes[f] == "" {
			t.Errorf("the trust keeps no hash of %s", f)
		}
	}
}

// A JSONC file that is not valid JSON even so is a problem naming the file; the
// session loads.
func TestOpencodeJSONCThatIsNotJSON(t *testing.T) {
	e := newEnv(t)
	claudeHome(t, e)
	path := filepath.Join(e.root, "opencode.jsonc")
	write(t, path, "{\n  // a comment\n  \"mcp\": {\n    \"x\": {\"type\": \"local\" \"command\": [\"x\"]}\n  }\n}\n")
	c, err := Load(e.root)
	if err != nil {
		t.Fatal(err)
	}
	if len(c.MCPProblems) != 1 || !strings.HasPrefix(c.MCPProblems[0], path+":") || !strings.Contains(c.MCPProblems[0], "is not valid JSON") {
		t.Errorf("problems %q", c.MCPProblems)
	}
}

// stripJSONC keeps plain JSON as it is and turns comments and trailing commas into
// spaces without moving anything.
func TestStripJSONC(t *testing.T) {
	for in, want := range map[string]string{
		`{"a": "//x", "b": "/*y*/"}`:     `{"a": "//x", "b": "/*y*/"}`,
		"{\"a\": 1, // c\n}":             "{\"a\": 1      \n}",
		"[1, /* c\nd */ 2,]":             "[1,     \n     2 ]",
		`{"a": "q\"//", "b": [1 , ] , }`: `{"a": "q\"//", "b": [1   ]   }`,
	} {
		if got := string(stripJSONC([]byte(in))); got != want {
			t.Errorf("stripJSONC(%q) = %q, want %q", in, got, want)
		}
	}
}
