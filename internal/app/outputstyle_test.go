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

// An output style from Claude Code's settings ends the system prompt from the first
// request; /output-style switches it (the prompt changes once, then stays), and a
// resumed session keeps the choice over the setting.
func TestOutputStyleThroughTheApp(t *testing.T) {
	claude := t.TempDir()
	t.Setenv("CLAUDE_CONFIG_DIR", claude)
	dir := project(t, "", map[string]string{
		".claude/output-styles/pirate.md": "---\nname: Pirate\ndescription: talks like a pirate\n---\nSPEAK LIKE A PIRATE\n",
		".gantry/output-styles/terse.md":  "---\nkeep-coding-instructions: true\n---\nONE LINE ANSWERS\n",
		".claude/settings.local.json":     `{"outputStyle": "pirate"}`,
	})
	p := scripted.New(scripted.Step{Text: "arr"}, scripted.Step{Text: "ok"}, scripted.Step{Text: "ok again"})
	var notices []string
	a, err := newStarted(Options{Cwd: dir, LLM: p, PermissionMode: "yolo"}, func(e face.Event) {
		if n, ok := e.(face.Notice); ok {
			notices = append(notices, n.Text)
		}
	}, face.NoHuman{})
	if err != nil {
		t.Fatal(err)
	}
	if a.OutputStyle() != "Pirate" {
		t.Errorf("style at the start %q", a.OutputStyle())
	}
	a.Run(context.Background(), "hi", nil)
	if name, err := a.SetOutputStyle("TERSE"); err != nil || name != "terse" {
		t.Fatalf("SetOutputStyle: %q, %v", name, err)
	}
	if _, err := a.SetOutputStyle("nope"); err == nil || !strings.Contains(err.Error(), `no output style named "nope"`) {
		t.Errorf("unknown style: %v", err)
	}
	a.Run(context.Background(), "again", nil)
	a.Run(context.Background(), "and again", nil)
	reqs := p.Requests()
	first, second, third := reqs[0].System, reqs[1].System, reqs[2].System
	if !strings.Contains(first, "<output-style name=\"Pirate\">") || !strings.Contains(first, "SPEAK LIKE A PIRATE\n</output-style>") || !strings.Contains(first, "take precedence over the ways of working") {
		t.Errorf("first system prompt's end:\n%s", first[max(0, len(first)-400):])
	}
	if strings.Contains(second, "PIRATE") || !strings.Contains(second, "ONE LINE ANSWERS") || !strings.Contains(second, "Keep working as described above") {
		t.Errorf("second system prompt's end:\n%s", second[max(0, len(second)-400):])
	}
	if second != third {
		t.Error("the system prompt changed without a switch")
	}
	if strings.Replace(first, styleOf(first), "", 1) != strings.Replace(second, styleOf(second), "", 1) {
		t.Error("the switch changed more than the style's section")
	}
	if len(notices) != 0 {
		t.Errorf("notices %q", notices)
	}
	id := a.SessionID()
	a.Close()

	p2 := scripted.New(scripted.Step{Text: "resumed"})
	b, err := newStarted(Options{Cwd: dir, LLM: p2, PermissionMode: "yolo", Resume: id}, func(face.Event) {}, face.NoHuman{})
	if err != nil {
		t.Fatal(err)
	}
	b.Run(context.Background(), "back", nil)
	if s := p2.Requests()[0].System; !strings.Contains(s, "ONE LINE ANSWERS") || strings.Contains(s, "PIRATE") {
		t.Errorf("resumed system prompt's end:\n%s", s[max(0, len(s)-400):])
	}
	if _, err := b.SetOutputStyle("default"); err != nil || b.OutputStyle() != "" || strings.Contains(b.agent.Config.System, "<output-style") {
		t.Errorf("back to the default: %v, %q", err, b.OutputStyle())
	}
	b.Close()

	// A setting naming no style: the default, and a notice that says so.
	if err := os.WriteFile(filepath.Join(dir, ".claude", "settings.local.json"), []byte(`{"outputStyle": "Explanatory"}`), 0o644); err != nil {
		t.Fatal(err)
	}
	notices = nil
	c, err := newStarted(Options{Cwd: dir, LLM: scripted.New(), PermissionMode: "yolo"}, func(e face.Event) {
		if n, ok := e.(face.Notice); ok {
			notices = append(notices, n.Text)
		}
	}, face.NoHuman{})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	if c.OutputStyle() != "" || len(notices) != 1 || !strings.Contains(notices[0], `Claude Code's outputStyle setting: there is no output style named "Explanatory"`) {
		t.Errorf("style %q, notices %q", c.OutputStyle(), notices)
	}
}

// styleOf returns the output style section of system, "" when there is none.
func styleOf(system string) string {
	i := strings.Index(system, "\n<output-style ")
	j := strings.Index(system, "</output-style>\n")
	if i < 0 || j < i {
		return ""
	}
	return system[i : j+len("</output-style>\n")]
}
