package app

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gantry-dev/gantry/internal/face"
	"github.com/gantry-dev/gantry/internal/llm/scripted"
)

// A plugin's hook and the stdio MCP server it starts have the plugin's folder in
// CLAUDE_PLUGIN_ROOT, as Claude Code gives it, so that a script reading the variable
// itself (not the ${CLAUDE_PLUGIN_ROOT} text of its command, which gantry replaces)
// finds its files. The hook also has CLAUDE_PROJECT_DIR.
func TestPluginProcessesHaveTheirRoot(t *testing.T) {
	commandHomes(t)
	echo := echoServer(t)
	out := t.TempDir()
	root := filepath.Join(t.TempDir(), "env-plugin")
	files := map[string]string{
		".claude-plugin/plugin.json": `{"name": "envy"}`,
		"hooks/hooks.json": `{"hooks": {"PreToolUse": [{"matcher": "Bash", "hooks": [
			{"type": "command", "command": "${CLAUDE_PLUGIN_ROOT}/hooks/note.sh", "timeout": 10}]}]}}`,
		"hooks/note.sh": "#!/bin/sh\ncat >/dev/null\nprintf '%s\\n%s' \"$CLAUDE_PLUGIN_ROOT\" \"$CLAUDE_PROJECT_DIR\" > " + filepath.Join(out, "hook-env") + "\n",
		".mcp.json":     `{"mcpServers": {"tools": {"command": "${CLAUDE_PLUGIN_ROOT}/bin/serve.sh"}}}`,
		"bin/serve.sh":  "#!/bin/sh\nprintf '%s' \"$CLAUDE_PLUGIN_ROOT\" > " + filepath.Join(out, "mcp-env") + "\nexec " + echo + "\n",
	}
	for name, body := range files {
		p := filepath.Join(root, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(body), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	dir := project(t, "plugins:\n  - "+root+"\n", map[string]string{})
	p := scripted.New(
		scripted.Step{Calls: []scripted.Call{
			{ID: "mcp", Name: "mcp__tools__echo", Input: `{"text":"hello"}`},
			{ID: "bash", Name: "bash", Input: `{"command":"echo hi"}`},
		}},
		scripted.Step{Text: "done"},
	)
	a, err := newStarted(Options{Cwd: dir, LLM: p, PermissionMode: "yolo"}, func(face.Event) {}, face.NoHuman{})
	if err != nil {
		t.Fatal(err)
	}
	defer a.Close()
	runTyped(t, a, "go")
	if got, isErr := resultOf(t, p, "mcp"); isErr || !strings.Contains(got, "hello") {
		t.Errorf("the plugin's MCP server: %q (error %v)", got, isErr)
	}
	if got, err := os.ReadFile(filepath.Join(out, "hook-env")); err != nil || string(got) != root+"\n"+dir {
		t.Errorf("the plugin's hook had %q (%v), want %q then %q", got, err, root, dir)
	}
	if got, err := os.ReadFile(filepath.Join(out, "mcp-env")); err != nil || string(got) != root {
		t.Errorf("the plugin's MCP server had %q (%v), want %q", got, err, root)
	}
}
