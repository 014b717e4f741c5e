package tui

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gantry-dev/gantry/internal/llm/scripted"
)

// /export writes into gantry's data folder; written into the project by path, the
// export is gantry's own: the next /rewind neither names it as changed outside gantry
// nor shows it in the diff, and the rewind leaves it.
func TestExportThenRewind(t *testing.T) {
	d := newDriver(t, scripted.New(
		scripted.Step{Calls: []scripted.Call{{ID: "b1", Name: "bash", Input: `{"command":"echo changed > note.txt"}`}}},
		scripted.Step{Text: "changed it"},
	), 120, 40, false, func(dir string) {
		if err := os.WriteFile(filepath.Join(dir, "note.txt"), []byte("original\n"), 0o644); err != nil {
			t.Fatal(err)
		}
	})
	d.m.app.SetMode("yolo")
	d.typeText("change the note")
	d.press("enter")
	d.idle()
	d.typeText("/export")
	d.press("enter")
	def := filepath.Join(d.m.app.ExportDir(), "gantry-"+d.m.app.SessionID()+".md")
	if _, err := os.Stat(def); err != nil || !strings.Contains(transcript(d), "wrote the transcript to "+def) {
		t.Fatalf("/export: %v\n%s", err, transcript(d))
	}
	inProject := filepath.Join(d.dir, "notes", "talk.md")
	d.typeText("/export " + inProject)
	d.press("enter")
	if _, err := os.Stat(inProject); err != nil {
		t.Fatalf("/export %s: %v\n%s", inProject, err, transcript(d))
	}
	d.typeText("/rewind")
	d.press("enter")
	if live := d.m.live(); !strings.Contains(live, "change the note — 1 file(s), +1 -1") {
		t.Fatalf("the rewind list counts the export:\n%s", live)
	}
	d.press("enter") // the prompt
	d.press("enter") // files and conversation
	live := d.m.live()
	if strings.Contains(live, "outside gantry") || strings.Contains(live, "talk.md") || !strings.Contains(live, "+original") {
		t.Fatalf("the rewind's diff:\n%s", live)
	}
	d.press("y")
	if b, _ := os.ReadFile(filepath.Join(d.dir, "note.txt")); string(b) != "original\n" {
		t.Errorf("note.txt after the rewind: %q", b)
	}
	if _, err := os.Stat(inProject); err != nil {
		t.Errorf("the rewind removed the export: %v", err)
	}
}
