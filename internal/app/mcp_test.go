package app

import (
	"context"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/gantry-dev/gantry/internal/face"
	"github.com/gantry-dev/gantry/internal/llm"
	"github.com/gantry-dev/gantry/internal/llm/scripted"
)

// echoServer builds the test MCP server of internal/mcpclient for the test.
func echoServer(t *testing.T) string {
	t.Helper()
	bin := filepath.Join(t.TempDir(), "echoserver")
	if out, err := exec.Command("go", "build", "-o", bin, "../mcpclient/testdata/echoserver").CombinedOutput(); err != nil {
		t.Fatalf("building the test MCP server: %v\n%s", err, out)
	}
	return bin
}

// claudeUser gives the test a home of its own, with Claude Code's ~/.claude.json.
func claudeUser(t *testing.T, claudeJSON string) string {
	t.Helper()
	home := t.TempDir()
	t.Setenv("HOME", home)
	t.Setenv("CLAUDE_CONFIG_DIR", "")
	if claudeJSON != "" {
		if err := os.WriteFile(filepath.Join(home, ".claude.json"), []byte(claudeJSON), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	return home
}

// resultOf is the text of the result of the call id in the model's requests.
func resultOf(t *testing.T, p *scripted.Provider, id string) (string, bool) {
	t.Helper()
	for _, req := range p.Requests() {
		for _, m := range req.Messages {
			for _, b := range m.Content {
				if b.Type == llm.BlockToolResult && b.ToolCallID == id {
					return b.Text, b.IsError
				}
			}
		}
	}
	t.Fatalf("no result of %s", id)
	return "", false
}

// Claude Code's MCP files, as Claude Code writes them: a .mcp.json with ${VAR} and
// ${VAR:-default}, the user's server and this project's in ~/.claude.json. Their
// servers start, with the project as their root; one whose variable is not set is a
// notice naming it and the server, and the others still start. /mcp's App method says
// where each stands.
func TestClaudeMCPFilesInASession(t *testing.T) {
	echo := echoServer(t)
	t.Setenv("GANTRY_TEST_TOKEN", "tok-123")
	t.Setenv("GANTRY_TEST_UNSET", "")
	os.Unsetenv("GANTRY_TEST_UNSET")
	dir := project(t, "", map[string]string{
		".mcp.json": `{
  "mcpServers": {
    "echo": {
      "type": "stdio",
      "command": "` + echo + `",
      "args": ["-page", "${GANTRY_TEST_PAGE:-3}"],
      "env": {"TOKEN": "${GANTRY_TEST_TOKEN}"}
    },
    "needs-key": {
      "command": "` + echo + `",
      "env": {"KEY": "${GANTRY_TEST_UNSET}"}
    }
  }
}
`,
	})
	claudeUser(t, `{"mcpServers": {"mine": {"type": "stdio", "command": "`+echo+`", "args": [], "env": {}}},
 "projects": {"`+dir+`": {"mcpServers": {"local": {"command": "`+echo+`"}}}}}`)
	p := scripted.New(
		scripted.Step{Calls: []scripted.Call{
			{ID: "roots", Name: "mcp__echo__roots", Input: `{}`},
			{ID: "token", Name: "mcp__echo__env", Input: `{"name":"TOKEN"}`},
			{ID: "project", Name: "mcp__echo__env", Input: `{"name":"CLAUDE_PROJECT_DIR"}`},
			{ID: "args", Name: "mcp__echo__whereami", Input: `{}`},
		}},
		scripted.Step{Text: "done"},
	)
	var mu sync.Mutex
	var notices []string
	a, err := newStarted(Options{Cwd: dir, LLM: p, PermissionMode: "yolo"}, func(e face.Event) {
		if n, ok := e.(face.Notice); ok {
			mu.Lock()
			notices = append(notices, n.Text)
			mu.Unlock()
		}
	}, face.NoHuman{})
	if err != nil {
		t.Fatal(err)
	}
	defer a.Close()

	mcpJSON := filepath.Join(dir, ".mcp.json")
	want := mcpJSON + `:9: MCP server "needs-key" needs the environment variable GANTRY_TEST_UNSET, which is not set (${GANTRY_TEST_UNSET:-value} gives it a default), so it was not started.`
	mu.Lock()
	if len(notices) != 1 || notices[0] != want {
		t.Errorf("notices %q\nwant %q", notices, want)
	}
	mu.Unlock()

	status := map[string]MCPServerStatus{}
	var order []string
	for _, s := range a.MCPServers() {
		status[s.Name] = s
		order = append(order, s.Name)
	}
	if !slices.Equal(order, []string{"echo", "local", "mine", "needs-key"}) {
		t.Errorf("servers %q", order)
	}
	if s := status["echo"]; s.State != MCPConnected || s.From != mcpJSON+":3" || s.Transport != "stdio" ||
		s.Target != echo+" -page ${GANTRY_TEST_PAGE:-3}" || !slices.Contains(s.Tools, "mcp__echo__roots") || s.Reason != "" {
		t.Errorf("echo: %+v", s)
	}
	if s := status["needs-key"]; s.State != MCPFailed || s.Reason != want || len(s.Tools) != 0 {
		t.Errorf("needs-key: %+v", s)
	}
	for _, name := range []string{"mine", "local"} {
		if s := status[name]; s.State != MCPConnected || !strings.HasSuffix(s.From, ".claude.json:1") && !strings.HasSuffix(s.From, ".claude.json:2") {
			t.Errorf("%s: %+v", name, s)
		}
	}
	for _, name := range []string{"mcp__mine__echo", "mcp__local__echo", "mcp__echo__echo"} {
		if !slices.Contains(a.ToolNames(), name) {
			t.Errorf("%s not offered: %v", name, a.ToolNames())
		}
	}

	if end := a.Run(context.Background(), "use the echo server", nil); end.StopReason != "end_turn" {
		t.Fatalf("end %+v", end)
	}
	root := (&url.URL{Scheme: "file", Path: dir}).String()
	for id, want := range map[string]string{"roots": root, "token": "tok-123", "project": dir, "args": dir + "\n-page 3"} {
		if got, isErr := resultOf(t, p, id); isErr || got != want {
			t.Errorf("%s: %q (error %v), want %q", id, got, isErr, want)
		}
	}
}

// gantry's own config wins over Claude Code's files on a name clash.
func TestGantryConfigWinsOverMCPJSON(t *testing.T) {
	echo := echoServer(t)
	dir := project(t, "mcpServers:\n  echo:\n    command: "+echo+"\n    args: [-page, '1']\n", map[string]string{
		".mcp.json": `{"mcpServers": {"echo": {"command": "/no/such/server"}}}`,
	})
	claudeUser(t, "")
	a := open(t, Options{Cwd: dir})
	list := a.MCPServers()
	if len(list) != 1 || list[0].State != MCPConnected || !strings.HasSuffix(list[0].From, filepath.Join(".gantry", "config.yaml")+":2") {
		t.Errorf("servers %+v", list)
	}
}

// Rules name MCP tools by their mcp__server__tool names: a server's every tool
// (mcp__srv__*), one tool, and a deny that wins over the server's allow.
func TestPermissionRulesOnMCPTools(t *testing.T) {
	echo := echoServer(t)
	dir := project(t, "mcpServers:\n  echo:\n    command: "+echo+"\n  other:\n    command: "+echo+"\n"+
		"permissions:\n  allow: ['mcp__echo__*', 'mcp__other__add']\n  deny: [mcp__echo__fail]\n", map[string]string{})
	claudeUser(t, "")
	p := scripted.New(
		scripted.Step{Calls: []scripted.Call{
			{ID: "allowed", Name: "mcp__echo__echo", Input: `{"text":"hi"}`},
			{ID: "denied", Name: "mcp__echo__fail", Input: `{}`},
			{ID: "one-tool", Name: "mcp__other__add", Input: `{"a":1,"b":2}`},
			{ID: "unruled", Name: "mcp__other__echo", Input: `{"text":"asked"}`},
		}},
		scripted.Step{Text: "done"},
	)
	a, err := newStarted(Options{Cwd: dir, LLM: p}, func(face.Event) {}, face.NoHuman{})
	if err != nil {
		t.Fatal(err)
	}
	defer a.Close()
	if end := a.Run(context.Background(), "use them", nil); end.StopReason != "end_turn" {
		t.Fatalf("end %+v", end)
	}
	if got, isErr := resultOf(t, p, "allowed"); isErr || got != "hi" {
		t.Errorf("allowed: %q %v", got, isErr)
	}
	if got, isErr := resultOf(t, p, "one-tool"); isErr || got != "3" {
		t.Errorf("one tool allowed: %q %v", got, isErr)
	}
	if got, isErr := resultOf(t, p, "denied"); !isErr || !strings.Contains(got, "a deny rule (mcp__echo__fail from ") {
		t.Errorf("denied: %q %v", got, isErr)
	}
	// Nobody to ask in this face: a call no rule allows does not run.
	if got, isErr := resultOf(t, p, "unruled"); !isErr || !strings.Contains(got, "needs permission") {
		t.Errorf("unruled: %q %v", got, isErr)
	}
}
