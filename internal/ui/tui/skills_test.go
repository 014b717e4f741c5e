package tui

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gantry-dev/gantry/internal/llm"
	"github.com/gantry-dev/gantry/internal/llm/scripted"
)

// A skill typed as /name reaches the model inlined as @skill:name inlines it: the line
// naming its folder first, then its text with the arguments put in.
func TestSkillSlashCommandCarriesItsFolder(t *testing.T) {
	t.Setenv("CLAUDE_CONFIG_DIR", t.TempDir())
	t.Setenv("CODEX_HOME", t.TempDir())
	m := scripted.New(scripted.Step{Text: "filled"})
	var folder string
	d := newDriver(t, m, 120, 30, false, func(dir string) {
		folder = filepath.Join(dir, ".gantry", "skills", "forms")
		_ = os.MkdirAll(folder, 0o755)
		_ = os.WriteFile(filepath.Join(folder, "SKILL.md"), []byte("---\ndescription: Fill forms.\n---\nRead FIELDS.md here, then fill $ARGUMENTS.\n"), 0o644)
	})
	d.typeText("/forms the tax form")
	d.press("enter")
	d.idle()
	reqs := m.Requests()
	if len(reqs) != 1 {
		t.Fatalf("%d requests:\n%s", len(reqs), transcript(d))
	}
	var got string
	for _, msg := range reqs[0].Messages {
		if msg.Role == llm.RoleUser {
			got = msg.Text()
		}
	}
	want := "<skill name=\"forms\">\nBase directory for this skill: " + folder + "\n\n---\ndescription: Fill forms.\n---\nRead FIELDS.md here, then fill the tax form.\n</skill>"
	if !strings.HasPrefix(got, "@skill:forms the tax form\n\n") || !strings.Contains(got, want) {
		t.Errorf("the model got %q", got)
	}
}
