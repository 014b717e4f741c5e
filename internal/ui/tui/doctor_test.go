package tui

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gantry-dev/gantry/internal/llm/scripted"
)

// /doctor prints gantry doctor's rows in the transcript: an agent definition of the
// project's .claude/agents with its file, and an ignored Claude Code hook with why;
// without the model.
func TestDoctorCommand(t *testing.T) {
	t.Setenv("CLAUDE_CONFIG_DIR", t.TempDir())
	t.Setenv("CODEX_HOME", t.TempDir())
	m := scripted.New()
	d := newDriver(t, m, 200, 60, false, func(dir string) {
		for name, body := range map[string]string{
			".claude/agents/reviewer.md": "---\nname: reviewer\ndescription: Reviews a change\n---\nReview.\n",
			".claude/settings.json":      `{"hooks": {"NoSuchEvent": [{"hooks": [{"type": "command", "command": "true"}]}]}}`,
		} {
			p := filepath.Join(dir, name)
			if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
				t.Fatal(err)
			}
		}
	})
	d.typeText("/doctor")
	d.press("enter")
	out := transcript(d)
	for _, want := range []string{"What is in force here", "1 agent definition(s)", "reviewer.md", "⚠ the NoSuchEvent hooks were skipped"} {
		if !strings.Contains(out, want) {
			t.Errorf("transcript lacks %q:\n%s", want, out)
		}
	}
	if len(m.Requests()) != 0 {
		t.Error("/doctor reached the model")
	}
}
