package app

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gantry-dev/gantry/internal/face"
	"github.com/gantry-dev/gantry/internal/llm/scripted"
)

// A server of Codex's ~/.codex/config.toml starts in a session, with its env, and
// its tools are called as any MCP server's.
func TestCodexMCPServerInASession(t *testing.T) {
	echo := echoServer(t)
	dir := project(t, "", map[string]string{})
	home := claudeUser(t, "")
	t.Setenv("CODEX_HOME", "")
	codex := filepath.Join(home, ".codex")
	if err := os.MkdirAll(codex, 0o755); err != nil {
		t.Fatal(err)
	}
	toml := "[mcp_servers.echo]\ncommand = \"" + echo + "\"\n\n[mcp_servers.echo.env]\nTOKEN = \"from codex\"\n"
	if err := os.WriteFile(filepath.Join(codex, "config.toml"), []byte(toml), 0o644); err != nil {
		t.Fatal(err)
	}
	p := scripted.New(
		scripted.Step{Calls: []scripted.Call{{ID: "token", Name: "mcp__echo__env", Input: `{"name":"TOKEN"}`}}},
		scripted.Step{Text: "done"},
	)
	rec := &recorder{}
	a, err := newStarted(Options{Cwd: dir, LLM: p, PermissionMode: "yolo"}, rec.sink, face.NoHuman{})
	if err != nil {
		t.Fatal(err)
	}
	a.Run(context.Background(), "go", nil)
	a.Close()
	if got := rec.finished()["token"]; !strings.Contains(got, "from codex") {
		t.Errorf("the call ended with %q; notices %q", got, rec.notices())
	}
}
