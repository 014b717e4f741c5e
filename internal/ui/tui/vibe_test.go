package tui

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gantry-dev/gantry/internal/llm"
	"github.com/gantry-dev/gantry/internal/llm/scripted"
)

// /vibe turns vibe mode on; a worker's calls show as ⎿ [label] lines; the status line
// counts the running workers; esc between turns asks, and a second esc stops them.
func TestVibeWorkersInTheTerminal(t *testing.T) {
	answer := func(req llm.Request) scripted.Step {
		last := req.Messages[len(req.Messages)-1]
		if strings.Contains(req.System, "background worker") {
			if len(req.Messages) == 1 {
				return scripted.Step{Calls: []scripted.Call{{ID: "r1", Name: "read_file", Input: `{"path":"notes.txt"}`}}}
			}
			return scripted.Step{Text: "still working", BlockUntilCancel: true}
		}
		for _, b := range last.Content {
			if b.Type == llm.BlockToolResult {
				return scripted.Step{Text: "spawned a worker"}
			}
		}
		return scripted.Step{Calls: []scripted.Call{{ID: "s1", Name: "vibe_spawn", Input: `{"brief":"read the notes","label":"reader"}`}}}
	}
	var steps []scripted.Step
	for range 6 {
		steps = append(steps, scripted.Step{Func: answer})
	}
	d := newDriver(t, scripted.New(steps...), 100, 30, false, func(dir string) {
		if err := os.WriteFile(filepath.Join(dir, "notes.txt"), []byte("a note\n"), 0o644); err != nil {
			t.Fatal(err)
		}
	})
	d.typeText("/vibe on")
	d.press("enter")
	d.idle()
	if !d.m.app.Vibe() || !strings.Contains(d.m.statusLine(), "vibe") {
		t.Fatalf("vibe on: %v, status %q", d.m.app.Vibe(), d.m.statusLine())
	}
	d.typeText("work in the background")
	d.press("enter")
	d.idle()
	d.until("the worker's read", func() bool { return strings.Contains(transcript(d), "⎿ [reader]") })
	d.until("the worker counted in the status line", func() bool {
		d.m.hint = ""
		return strings.Contains(d.m.statusLine(), "1 worker(s)")
	})
	d.press("esc")
	if s := d.m.app.Workers(); s[0].Status != "running" || !strings.Contains(d.m.live(), "esc again") {
		t.Fatalf("one esc: worker %s, live %q", s[0].Status, d.m.live())
	}
	d.press("esc")
	d.idle()
	if s := d.m.app.Workers(); s[0].Status != "killed" || !strings.Contains(transcript(d), "stopped 1 worker(s)") {
		t.Errorf("two escs: worker %s, transcript:\n%s", s[0].Status, transcript(d))
	}
}
