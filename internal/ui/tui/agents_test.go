package tui

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gantry-dev/gantry/internal/llm/scripted"
)

// /agents lists the definitions with where each came from, without the model.
func TestAgentsCommand(t *testing.T) {
	t.Setenv("CLAUDE_CONFIG_DIR", t.TempDir())
	m := scripted.New()
	d := newDriver(t, m, 160, 30, false, func(dir string) {
		p := filepath.Join(dir, ".claude", "agents", "reviewer.md")
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte("---\nname: reviewer\ndescription: Reviews a change\ntools: Read\n---\nReview.\n"), 0o644); err != nil {
			t.Fatal(err)
		}
	})
	d.typeText("/agents")
	d.press("enter")
	out := transcript(d)
	for _, want := range []string{"Agents (the model runs one", "reviewer", "Reviews a change", "project .claude/agents"} {
		if !strings.Contains(out, want) {
			t.Errorf("transcript lacks %q:\n%s", want, out)
		}
	}
	if len(m.Requests()) != 0 {
		t.Error("/agents reached the model")
	}
}
