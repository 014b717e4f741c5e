package tui

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gantry-dev/gantry/internal/llm"
	"github.com/gantry-dev/gantry/internal/llm/scripted"
)

// A custom command (Claude Code's project folder, in a namespace) is offered by the
// completion and /help with its description, and typed it reaches the model as its
// body with the arguments put in.
func TestCustomCommandCompletedListedAndRun(t *testing.T) {
	t.Setenv("CLAUDE_CONFIG_DIR", t.TempDir())
	t.Setenv("CODEX_HOME", t.TempDir())
	m := scripted.New(scripted.Step{Text: "hi back"})
	d := newDriver(t, m, 120, 30, false, func(dir string) {
		p := filepath.Join(dir, ".claude", "commands", "greet", "hello.md")
		_ = os.MkdirAll(filepath.Dir(p), 0o755)
		_ = os.WriteFile(p, []byte("---\ndescription: Greet someone\nargument-hint: [name]\n---\nSay hello to $ARGUMENTS.\n"), 0o644)
	})
	d.typeText("/hel")
	if view := d.m.comp.view(d.m); !strings.Contains(view, "hello") || !strings.Contains(view, "Greet someone (project:greet)") {
		t.Errorf("the completion offers %q", view)
	}
	d.m.input.Reset()
	d.m.comp.close()
	d.typeText("/help")
	d.press("enter")
	if out := transcript(d); !strings.Contains(out, "/hello") || !strings.Contains(out, "Greet someone (project:greet)") {
		t.Errorf("/help lacks the command:\n%s", out)
	}
	d.typeText("/hello WORLD")
	d.press("enter")
	d.idle()
	if strings.Contains(transcript(d), "unknown command") {
		t.Fatalf("the command was unknown:\n%s", transcript(d))
	}
	reqs := m.Requests()
	if len(reqs) != 1 {
		t.Fatalf("%d requests", len(reqs))
	}
	var got string
	for _, msg := range reqs[0].Messages {
		if msg.Role == llm.RoleUser {
			got = msg.Text()
		}
	}
	if !strings.Contains(got, "Say hello to WORLD.") {
		t.Errorf("the model got %q", got)
	}
}
