package config

import (
	"errors"
	"path/filepath"
	"reflect"
	"strconv"
	"strings"
	"testing"
)

// claudeHome isolates Claude Code's user file: ~/.claude.json under e's home.
func claudeHome(t *testing.T, e env) string {
	t.Setenv("CLAUDE_CONFIG_DIR", "")
	return filepath.Join(e.home, ".claude.json")
}

// A .mcp.json in the exact shape of Claude Code's documentation: stdio servers with
// and without a type, an http and an sse server with headers, ${VAR} kept for later.
func TestMCPJSONInClaudeShape(t *testing.T) {
	e := newEnv(t)
	claudeHome(t, e)
	path := filepath.Join(e.root, ".mcp.json")
	write(t, path, `{
  "mcpServers": {
    "filesystem": {
      "command": "npx",
      "args": ["-y", "@modelcontextprotocol/server-filesystem"],
      "env": {
        "ALLOWED_PATHS": "/Users/me/projects"
      }
    },
    "my-tool": {
      "type": "stdio",
      "command": "node",
      "args": ["./my-mcp-server.js"],
      "env": {"DEBUG": "${DEBUG:-false}"},
      "cwd": "tools"
    },
    "remote-api": {
      "type": "sse",
      "url": "https://api.example.com/mcp/sse",
      "headers": {
        "Authorization": "Bearer ${API_TOKEN}"
      }
    },
    "http-service": {
      "type": "http",
      "url": "https://api.example.com/mcp",
      "headers": {"X-API-Key": "${API_KEY}"},
      "oauth": {"clientId": "ignored"}
    }
  }
}
`)
	c, err := Load(e.root)
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]MCPServer{
		"filesystem": {Command: "npx", Args: []string{"-y", "@modelcontextprotocol/server-filesystem"},
			Env: map[string]string{"ALLOWED_PATHS": "/Users/me/projects"}, From: path + ":3"},
		"my-tool": {Type: "stdio", Command: "node", Args: []string{"./my-mcp-server.js"}, Env: map[string]string{"DEBUG": "${DEBUG:-false}"},
			Cwd: filepath.Join(e.root, "tools"), From: path + ":10"},
		"remote-api":   {Type: "sse", URL: "https://api.example.com/mcp/sse", Headers: map[string]string{"Authorization": "Bearer ${API_TOKEN}"}, From: path + ":17"},
		"http-service": {Type: "http", URL: "https://api.example.com/mcp", Headers: map[string]string{"X-API-Key": "${API_KEY}"}, From: path + ":24"},
	}
	if !reflect.DeepEqual(c.MCPServers, want) {
		t.Errorf("servers\n got %#v\nwant %#v", c.MCPServers, want)
	}
	if len(c.MCPProblems) != 0 || len(c.Files()) != 0 {
		t.Errorf("problems %q, files %q", c.MCPProblems, c.Files())
	}
}

// ~/.claude.json: the user's servers, and those of the projects entry of this project
// (the root's, then the working folder's); another project's are not read. Claude
// Code's order holds (the project's entry over .mcp.json over the user's), and
// gantry's own files win over all of them.
func TestClaudeJSONServersAndPrecedence(t *testing.T) {
	e := newEnv(t)
	home := claudeHome(t, e)
	sub := filepath.Join(e.root, "sub")
	write(t, home, `{
  "numStartups": 42,
  "tipsHistory": {"a": 1},
  "mcpServers": {
    "user-only": {"type": "stdio", "command": "u", "args": [], "env": {}},
    "everywhere": {"command": "from-user"},
    "clash": {"command": "from-user"}
  },
  "projects": {
    "/elsewhere": {"mcpServers": {"other": {"command": "o"}}},
    "`+e.root+`": {
      "allowedTools": [],
      "mcpServers": {"local": {"type": "http", "url": "http://127.0.0.1:9/mcp"}, "everywhere": {"command": "from-local"}}
    },
    "`+sub+`": {"mcpServers": {"local": {"command": "from-sub"}}}
  }
}`)
	write(t, filepath.Join(e.root, ".mcp.json"), `{"mcpServers": {"everywhere": {"command": "from-project"}, "project-only": {"command": "p"}, "clash": {"command": "from-project"}}}`)
	pf := e.projectFile(t, "mcpServers:\n  clash:\n    command: from-gantry\n")
	c, err := Load(sub)
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]string{}
	for name, s := range c.MCPServers {
		got[name] = s.Command + s.URL + " @ " + s.From
	}
	want := map[string]string{
		"user-only":    "u @ " + home + ":5",
		"everywhere":   "from-local @ " + home + ":13",
		"local":        "from-sub @ " + home + ":15",
		"project-only": "p @ " + filepath.Join(e.root, ".mcp.json") + ":1",
		"clash":        "from-gantry @ " + pf + ":2",
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("servers\n got %q\nwant %q", got, want)
	}

	// From the root, the working folder's entry does not apply.
	c, err = Load(e.root)
	if err != nil {
		t.Fatal(err)
	}
	if s := c.MCPServers["local"]; s.URL != "http://127.0.0.1:9/mcp" || s.Type != "http" {
		t.Errorf("local from the root: %+v", s)
	}
}

// CLAUDE_CONFIG_DIR moves Claude Code's user file, as it moves it for Claude Code.
func TestClaudeConfigDir(t *testing.T) {
	e := newEnv(t)
	dir := filepath.Join(e.home, "claude-work")
	t.Setenv("CLAUDE_CONFIG_DIR", dir)
	write(t, filepath.Join(e.home, ".claude.json"), `{"mcpServers": {"default-home": {"command": "x"}}}`)
	write(t, filepath.Join(dir, ".claude.json"), `{"mcpServers": {"moved": {"command": "y"}}}`)
	if got := ClaudeJSON(); got != filepath.Join(dir, ".claude.json") {
		t.Errorf("ClaudeJSON %s", got)
	}
	c, err := Load(e.root)
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := c.MCPServers["moved"]; !ok || len(c.MCPServers) != 1 {
		t.Errorf("servers %v", c.MCPServers)
	}
}

// What gantry cannot use in Claude Code's files is said, naming the file, the line
// and the server; it never stops gantry, and the other servers are kept.
func TestClaudeMCPProblemsAreNotices(t *testing.T) {
	e := newEnv(t)
	home := claudeHome(t, e)
	mcpJSON := filepath.Join(e.root, ".mcp.json")
	write(t, mcpJSON, `{
  "mcpServers": {
    "ok": {"command": "fine"},
    "ws": {"type": "ws", "url": "ws://127.0.0.1:1"},
    "args": {"command": "x", "args": "--one"},
    "port": {"command": "x", "env": {"PORT": 3000}, "args": ["a"]},
    "both": {"command": "x", "url": "http://127.0.0.1:1"},
    "nothing": {},
    "text": "npx server",
    "sse": {"type": "sse", "command": "x"},
    "link": {"link": "https://mcp.example.com/mcp"}
  }
}`)
	write(t, home, "{\n  \"mcpServers\": {\n    \"broken\": {\"command\": \"x\",}\n  }\n}\n")
	c, err := Load(e.root)
	if err != nil {
		t.Fatal(err)
	}
	if len(c.MCPProblems) != 1 || !strings.HasPrefix(c.MCPProblems[0], home+":3: is not valid JSON (") ||
		!strings.HasSuffix(c.MCPProblems[0], "), so its MCP servers are not started") {
		t.Errorf("problems %q", c.MCPProblems)
	}
	want := map[string]string{
		"ok":      "",
		"ws":      mcpJSON + `:4: MCP server "ws" has type "ws"; gantry connects to stdio, http, sse servers, so it was not started.`,
		"args":    mcpJSON + `:5: MCP server "args" has "args" as a string, where gantry needs a list of strings, so it was not started.`,
		"port":    mcpJSON + `:6: MCP server "port" has a number in "env", where gantry needs strings, so it was not started.`,
		"both":    mcpJSON + `:7: MCP server "both" has both a command and a url; give one, so it was not started.`,
		"nothing": mcpJSON + `:8: MCP server "nothing" needs a command (a stdio server) or a url (an HTTP server), so it was not started.`,
		"text":    mcpJSON + `:9: MCP server "text" is not a JSON object, so it was not started.`,
		"sse":     mcpJSON + `:10: MCP server "sse" is of type sse and needs a url, so it was not started.`,
		"link":    mcpJSON + `:11: MCP server "link" needs a command (a stdio server) or a url (an HTTP server); its link (https://mcp.example.com/mcp) is not read as one (rename the key url if that is the server's address), so it was not started.`,
	}
	got := map[string]string{}
	for name, s := range c.MCPServers {
		got[name] = s.Problem
	}
	if !reflect.DeepEqual(got, want) {
		for name := range want {
			if got[name] != want[name] {
				t.Errorf("%s:\n got %s\nwant %s", name, got[name], want[name])
			}
		}
		t.Errorf("servers %q", got)
	}

	for _, tc := range []struct{ body, want string }{
		{`[]`, mcpJSON + ":1: the file must be a JSON object, so its MCP servers are not started"},
		{`{"mcpServers": []}`, mcpJSON + ":1: mcpServers must be a JSON object, so its MCP servers are not started"},
		{"{\n\"mcpServers\": {\n", mcpJSON + ":3: ends too soon to be valid JSON, so its MCP servers are not started"},
	} {
		write(t, mcpJSON, tc.body)
		c, err := Load(e.root)
		if err != nil {
			t.Fatal(err)
		}
		if len(c.MCPProblems) != 2 || c.MCPProblems[1] != tc.want {
			t.Errorf("%s: problems %q, want %q", tc.body, c.MCPProblems, tc.want)
		}
	}
}

// gantry's own files take Claude Code's entry shape too: type and cwd.
func TestGantryMCPServerOfClaudeShape(t *testing.T) {
	e := newEnv(t)
	claudeHome(t, e)
	pf := e.projectFile(t, "mcpServers:\n  old:\n    type: sse\n    url: http://127.0.0.1:1/sse\n  here:\n    type: stdio\n    command: srv\n    cwd: ~/tools\n")
	c, err := Load(e.root)
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]MCPServer{
		"old":  {Type: "sse", URL: "http://127.0.0.1:1/sse", From: pf + ":2"},
		"here": {Type: "stdio", Command: "srv", Cwd: filepath.Join(e.home, "tools"), From: pf + ":5"},
	}
	if !reflect.DeepEqual(c.MCPServers, want) {
		t.Errorf("servers\n got %#v\nwant %#v", c.MCPServers, want)
	}
}

func TestExpandMCP(t *testing.T) {
	vars := map[string]string{"HOME": "/home/u", "TOKEN": "s3cret", "EMPTY": ""}
	lookup := func(k string) (string, bool) { v, ok := vars[k]; return v, ok }
	s := MCPServer{
		Command: "${HOME}/bin/srv",
		Args:    []string{"--token=${TOKEN}", "${MISSING:-fallback}", "$HOME", "${EMPTY:-unused}", "${A:-x:-y}"},
		Env:     map[string]string{"${TOKEN}": "${TOKEN}"},
		URL:     "http://${HOST:-127.0.0.1}:${PORT:-8080}/mcp",
		Headers: map[string]string{"Authorization": "Bearer ${TOKEN}"},
		Cwd:     "${HOME}",
	}
	got, err := ExpandMCP(s, lookup)
	if err != nil {
		t.Fatal(err)
	}
	want := MCPServer{
		Command: "/home/u/bin/srv",
		Args:    []string{"--token=s3cret", "fallback", "$HOME", "", "x:-y"},
		Env:     map[string]string{"${TOKEN}": "s3cret"},
		URL:     "http://127.0.0.1:8080/mcp",
		Headers: map[string]string{"Authorization": "Bearer s3cret"},
		Cwd:     "${HOME}",
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("got %#v\nwant %#v", got, want)
	}
	if s.Args[0] != "--token=${TOKEN}" || s.Env["${TOKEN}"] != "${TOKEN}" {
		t.Errorf("the server given was changed: %+v", s)
	}

	_, err = ExpandMCP(MCPServer{Command: "${NOPE}", Headers: map[string]string{"X": "${ALSO_NOT} ${NOPE}"}}, lookup)
	var ue *UnsetVarsError
	if !errors.As(err, &ue) || !reflect.DeepEqual(ue.Names, []string{"ALSO_NOT", "NOPE"}) ||
		err.Error() != "needs the environment variables ALSO_NOT, NOPE, which are not set" {
		t.Errorf("err %v", err)
	}
	_, err = ExpandMCP(MCPServer{URL: "http://ci/mcp", Headers: map[string]string{"Authorization": "Basic ${input:ci-auth}", "X": "${input:a} ${NOPE}"}}, lookup)
	if !errors.As(err, &ue) || !reflect.DeepEqual(ue.Names, []string{"NOPE"}) || !reflect.DeepEqual(ue.Inputs, []string{"a", "ci-auth"}) ||
		err.Error() != "needs the environment variable NOPE, which is not set (${NOPE:-value} gives it a default), and uses ${input:a}, ${input:ci-auth}, VS Code's syntax for values VS Code asks for, which gantry cannot fill (write the value, or ${VAR} of an environment variable, in its place)" {
		t.Errorf("err %v", err)
	}
	_, err = ExpandMCP(MCPServer{URL: "${URL}"}, lookup)
	if err == nil || err.Error() != "needs the environment variable URL, which is not set (${URL:-value} gives it a default)" {
		t.Errorf("err %v", err)
	}
}

// A .mcp.json without mcpServers is read in the shapes other tools write: the servers
// at the top level, or under VS Code's servers; each server's line is its own.
func TestMCPJSONWithoutMCPServers(t *testing.T) {
	for _, c := range []struct{ shape, text string }{
		{"top", "{\n  \"github\": {\"command\": \"npx\", \"args\": [\"-y\", \"server-github\"]},\n  \"docs\": {\"type\": \"http\", \"url\": \"https://docs.example.com/mcp\"}\n}\n"},
		{"servers", "{\n  \"inputs\": [],\n  \"servers\": {\n    \"github\": {\"command\": \"npx\", \"args\": [\"-y\", \"server-github\"]},\n    \"docs\": {\"type\": \"http\", \"url\": \"https://docs.example.com/mcp\"}\n  }\n}\n"},
	} {
		e := newEnv(t)
		claudeHome(t, e)
		path := filepath.Join(e.root, ".mcp.json")
		write(t, path, c.text)
		cfg, err := Load(e.root)
		if err != nil {
			t.Fatal(err)
		}
		line := map[string]int{"top": 2, "servers": 4}[c.shape]
		want := map[string]MCPServer{
			"github": {Command: "npx", Args: []string{"-y", "server-github"}, From: path + ":" + strconv.Itoa(line)},
			"docs":   {Type: "http", URL: "https://docs.example.com/mcp", From: path + ":" + strconv.Itoa(line+1)},
		}
		if !reflect.DeepEqual(cfg.MCPServers, want) || len(cfg.MCPProblems) != 0 {
			t.Errorf("%s: servers\n got %#v\nwant %#v\nproblems %q", c.shape, cfg.MCPServers, want, cfg.MCPProblems)
		}
	}
}

// Codex's ~/.codex/config.toml gives its [mcp_servers.NAME] tables: a stdio server
// with args, env and cwd, a streamable HTTP one with its bearer token and headers from
// the environment (expanded when it starts), a disabled one left out; the keys gantry
// does not use are named in one problem, and Claude Code's server of the same name
// wins over Codex's.
func TestCodexMCPServers(t *testing.T) {
	e := newEnv(t)
	claudeHome(t, e)
	path := filepath.Join(e.home, ".codex", "config.toml")
	write(t, path, `model = "o4-mini"

[mcp_servers.docs]
command = "npx"
args = ["-y", "docs-mcp"]
cwd = "/srv"
startup_timeout_sec = 20
enabled_tools = ["search"]

[mcp_servers.docs.env]
DEBUG = "1"

[mcp_servers.remote]
url = "https://mcp.example.com/mcp"
bearer_token_env_var = "MCP_TOKEN"
http_headers = { "X-Team" = "core" }
env_http_headers = { "X-Key" = "MCP_KEY" }

[mcp_servers.off]
command = "false"
enabled = false

[mcp_servers.both]
command = "codex-one"
`)
	write(t, filepath.Join(e.home, ".claude.json"), `{"mcpServers": {"both": {"command": "claude-one"}}}`)
	c, err := Load(e.root)
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]MCPServer{
		"docs": {Command: "npx", Args: []string{"-y", "docs-mcp"}, Env: map[string]string{"DEBUG": "1"}, Cwd: "/srv", Timeout: 20, From: path},
		"remote": {Type: "http", URL: "https://mcp.example.com/mcp", From: path,
			Headers: map[string]string{"Authorization": "Bearer ${MCP_TOKEN}", "X-Team": "core", "X-Key": "${MCP_KEY}"}},
	}
	for name, w := range want {
		if got := c.MCPServers[name]; !reflect.DeepEqual(got, w) {
			t.Errorf("%s:\n got %#v\nwant %#v", name, got, w)
		}
	}
	if _, ok := c.MCPServers["off"]; ok {
		t.Error("the disabled server is there")
	}
	if got := c.MCPServers["both"].Command; got != "claude-one" {
		t.Errorf("both is %q, want Claude Code's", got)
	}
	if len(c.MCPProblems) != 1 || !strings.Contains(c.MCPProblems[0], "mcp_servers.docs.enabled_tools") {
		t.Errorf("problems %q", c.MCPProblems)
	}
}
