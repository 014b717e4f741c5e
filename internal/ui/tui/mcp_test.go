package tui

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gantry-dev/gantry/internal/llm/scripted"
)

// /mcp lists the servers: connected ones with their tools, failed ones with why, each
// with where it is defined; the model is not asked.
func TestMCPCommand(t *testing.T) {
	bin := filepath.Join(t.TempDir(), "echoserver")
	if out, err := exec.Command("go", "build", "-o", bin, "../../mcpclient/testdata/echoserver").CombinedOutput(); err != nil {
		t.Fatalf("building the test MCP server: %v\n%s", err, out)
	}
	t.Setenv("HOME", t.TempDir())
	t.Setenv("CLAUDE_CONFIG_DIR", "")
	m := scripted.New()
	d := newDriver(t, m, 200, 40, false, func(dir string) {
		files := map[string]string{
			".mcp.json":           `{"mcpServers": {"echo": {"type": "stdio", "command": "` + bin + `", "args": ["-page", "4"]}, "keyless": {"type": "http", "url": "http://127.0.0.1:1/${GANTRY_TEST_NO_SUCH_VAR}"}}}`,
			".gantry/config.yaml": "mcpServers:\n  broken:\n    command: " + bin + "\n    args: [-exit]\n",
		}
		for name, body := range files {
			p := filepath.Join(dir, name)
			if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
				t.Fatal(err)
			}
		}
	})
	d.typeText("/mcp")
	d.press("enter")
	d.until("the list", func() bool { return strings.Contains(transcript(d), "permission rules name these tools") })
	out := normalize(transcript(d), d.dir)
	for _, want := range []string{
		"MCP servers",
		"✗ broken  failed · stdio",
		"from     <dir>/.gantry/config.yaml:2",
		`why      <dir>/.gantry/config.yaml:2: MCP server "broken" failed to start`,
		"✓ echo  connected · stdio",
		"from     <dir>/.mcp.json:1",
		"command  " + bin + " -page 4",
		"tools    mcp__echo__add, mcp__echo__crash, mcp__echo__echo,",
		"✗ keyless  failed · http",
		"url      http://127.0.0.1:1/${GANTRY_TEST_NO_SUCH_VAR}",
		`needs the environment variable GANTRY_TEST_NO_SUCH_VAR, which is not set`,
	} {
		if !strings.Contains(out, want) {
			t.Errorf("/mcp lacks %q:\n%s", want, out)
		}
	}
	if len(m.Requests()) != 0 {
		t.Error("/mcp reached the model")
	}
}
