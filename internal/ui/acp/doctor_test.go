package acp

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	sdk "github.com/coder/acp-go-sdk"

	"github.com/gantry-dev/gantry/internal/llm/scripted"
)

// /doctor answers with gantry doctor's rows: an agent definition with its file, and
// an ignored Claude Code hook with why; without the model.
func TestDoctorCommand(t *testing.T) {
	t.Setenv("CLAUDE_CONFIG_DIR", t.TempDir())
	t.Setenv("CODEX_HOME", t.TempDir())
	m := scripted.New()
	h := start(t, m, sdk.ClientCapabilities{})
	if err := os.MkdirAll(filepath.Join(h.dir, ".gantry", "agents"), 0o755); err != nil {
		t.Fatal(err)
	}
	h.write(".gantry/agents/reviewer.md", "---\nname: reviewer\ndescription: Reviews a change\n---\nReview.\n")
	if err := os.MkdirAll(filepath.Join(h.dir, ".claude"), 0o755); err != nil {
		t.Fatal(err)
	}
	h.write(".claude/settings.json", `{"hooks": {"NoSuchEvent": [{"hooks": [{"type": "command", "command": "true"}]}]}}`)
	id := h.newSession()
	h.prompt(id, "/doctor")
	got := agentText(h.client.snapshot())
	for _, want := range []string{"- **agents**: 1 agent definition(s)", "  - reviewer: " + filepath.Join(h.dir, ".gantry", "agents", "reviewer.md"), "⚠ the NoSuchEvent hooks were skipped"} {
		if !strings.Contains(got, want) {
			t.Errorf("/doctor lacks %q:\n%s", want, got)
		}
	}
	if len(m.Requests()) != 0 {
		t.Error("/doctor reached the model")
	}
}
