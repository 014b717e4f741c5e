package tui

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gantry-dev/gantry/internal/llm"
	"github.com/gantry-dev/gantry/internal/llm/scripted"
)

// /cost, /context and /export answer from the session.
func TestCostContextExport(t *testing.T) {
	d := newDriver(t, scripted.New(
		scripted.Step{Calls: []scripted.Call{{ID: "r1", Name: "read_file", Input: `{"path":"note.txt"}`}}, Usage: llm.Usage{InputTokens: 1200, OutputTokens: 30}},
		scripted.Step{Text: "The note says hello.", Usage: llm.Usage{InputTokens: 1300, OutputTokens: 10}},
	), 120, 40, false, func(dir string) {
		if err := os.WriteFile(filepath.Join(dir, "note.txt"), []byte("hello\n"), 0o644); err != nil {
			t.Fatal(err)
		}
	})
	d.typeText("what does the note say?")
	d.press("enter")
	d.idle()
	for _, c := range []struct{ cmd, want string }{
		{"/cost", "claude-sonnet-4-5"},
		{"/context", "tools' schemas"},
		{"/context", "found by tool_search"},
		{"/export out.md", "wrote the transcript to"},
	} {
		d.typeText(c.cmd)
		d.press("enter")
		d.idle()
		if tr := transcript(d); !strings.Contains(tr, c.want) {
			t.Errorf("%s: no %q in:\n%s", c.cmd, c.want, tr)
		}
	}
	if tr := transcript(d); !strings.Contains(tr, "2.5k") && !strings.Contains(tr, "2500") {
		t.Errorf("/cost does not sum the input tokens:\n%s", tr)
	}
	// A name without a folder goes to the session's folder in gantry's data folder.
	md, err := os.ReadFile(filepath.Join(d.m.app.ExportDir(), "out.md"))
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"## › what does the note say?", "**read_file**", `"path": "note.txt"`, "hello", "The note says hello."} {
		if !strings.Contains(string(md), want) {
			t.Errorf("the export lacks %q:\n%s", want, md)
		}
	}
}

// /memory lists the memory files in force and the rules waiting for their paths.
func TestMemoryCommand(t *testing.T) {
	t.Setenv("CLAUDE_CONFIG_DIR", t.TempDir())
	d := newDriver(t, scripted.New(), 120, 40, false, func(dir string) {
		for name, body := range map[string]string{
			"CLAUDE.md":            "project memory\n",
			".claude/rules/sql.md": "---\npaths: \"**/*.sql\"\n---\nsql rule\n",
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
	d.typeText("/memory")
	d.press("enter")
	d.idle()
	tr := transcript(d)
	for _, want := range []string{"CLAUDE.md", "15 B", "read at the start", ".claude/rules/sql.md", "waiting for its paths: **/*.sql"} {
		if !strings.Contains(tr, want) {
			t.Errorf("/memory: no %q in:\n%s", want, tr)
		}
	}
}

// /output-style lists the styles found and switches to one; the next request's system
// prompt has it.
func TestOutputStyleCommand(t *testing.T) {
	t.Setenv("CLAUDE_CONFIG_DIR", t.TempDir())
	model := scripted.New(scripted.Step{Text: "aye"})
	d := newDriver(t, model, 120, 40, false, func(dir string) {
		p := filepath.Join(dir, ".claude", "output-styles", "pirate.md")
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte("---\nname: Pirate\ndescription: talks like a pirate\n---\nSPEAK LIKE A PIRATE\n"), 0o644); err != nil {
			t.Fatal(err)
		}
	})
	for _, c := range []struct{ cmd, want string }{
		{"/output-style", "talks like a pirate"},
		{"/output-style nope", `no output style named "nope"`},
		{"/output-style pirate", "output style: Pirate (the system prompt changed"},
	} {
		d.typeText(c.cmd)
		d.press("enter")
		d.idle()
		if tr := transcript(d); !strings.Contains(tr, c.want) {
			t.Errorf("%s: no %q in:\n%s", c.cmd, c.want, tr)
		}
	}
	d.typeText("hello")
	d.press("enter")
	d.idle()
	if reqs := model.Requests(); len(reqs) != 1 || !strings.Contains(reqs[0].System, "SPEAK LIKE A PIRATE") {
		t.Errorf("the request's system prompt lacks the style (%d requests)", len(reqs))
	}
}
