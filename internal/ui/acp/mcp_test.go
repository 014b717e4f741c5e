package acp

import (
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	sdk "github.com/coder/acp-go-sdk"

	"github.com/gantry-dev/gantry/internal/llm/scripted"
)

// The stdio MCP servers a client gives with session/new are started and their tools
// offered to the model, as mcp__<server>__<tool>; a server that cannot start is a
// notice and the session works without it.
func TestSessionMCPServers(t *testing.T) {
	bin := filepath.Join(t.TempDir(), "echoserver")
	if out, err := exec.Command("go", "build", "-o", bin, "../../mcpclient/testdata/echoserver").CombinedOutput(); err != nil {
		t.Fatalf("building the test MCP server: %v\n%s", err, out)
	}
	m := scripted.New(
		scripted.Step{Calls: []scripted.Call{{ID: "m1", Name: "mcp__echo__echo", Input: `{"text":"through mcp"}`}}},
		scripted.Step{Text: "ok"},
	)
	h := start(t, m, sdk.ClientCapabilities{})
	s, err := h.conn.NewSession(t.Context(), sdk.NewSessionRequest{Cwd: h.dir, McpServers: []sdk.McpServer{
		{Stdio: &sdk.McpServerStdio{Name: "echo", Command: bin, Args: []string{}, Env: []sdk.EnvVariable{}}},
		{Stdio: &sdk.McpServerStdio{Name: "broken", Command: filepath.Join(h.dir, "no-such-server"), Args: []string{}, Env: []sdk.EnvVariable{}}},
	}})
	if err != nil {
		t.Fatal(err)
	}
	h.prompt(s.SessionId, "use the echo server")
	declared := false
	for _, spec := range m.Requests()[0].Tools {
		declared = declared || spec.Name == "mcp__echo__echo"
	}
	if !declared {
		t.Fatal("the MCP server's tool was not declared")
	}
	if got := lastResult(t, m, "m1"); got != "through mcp" {
		t.Errorf("the model read %q", got)
	}
	if !strings.Contains(agentText(h.client.snapshot()), `MCP server "broken"`) {
		t.Errorf("no notice of the broken server: %q", agentText(h.client.snapshot()))
	}
}
