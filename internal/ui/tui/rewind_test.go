package tui

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gantry-dev/gantry/internal/llm/scripted"
)

// esc esc on an empty input opens the rewind list; choosing the prompt and "Files and
// conversation" shows the diff, and y restores the files.
func TestEscEscRewinds(t *testing.T) {
	d := newDriver(t, scripted.New(
		scripted.Step{Calls: []scripted.Call{{ID: "b1", Name: "bash", Input: `{"command":"echo changed > note.txt && echo new > made.txt"}`}}},
		scripted.Step{Text: "changed the note"},
	), 100, 40, false, func(dir string) {
		if err := os.WriteFile(filepath.Join(dir, "note.txt"), []byte("original\n"), 0o644); err != nil {
			t.Fatal(err)
		}
	})
	d.m.app.SetMode("yolo")
	d.typeText("change the note")
	d.press("enter")
	d.idle()
	d.press("esc")
	d.press("esc")
	if len(d.m.dialogs) != 1 || !strings.Contains(d.m.live(), "change the note — 2 file(s)") {
		t.Fatalf("esc esc: %d dialogs, live:\n%s", len(d.m.dialogs), d.m.live())
	}
	d.press("enter") // the prompt
	d.press("enter") // files and conversation
	if live := d.m.live(); !strings.Contains(live, "-changed") || !strings.Contains(live, "+original") {
		t.Fatalf("no diff before the restore:\n%s", live)
	}
	d.press("y")
	if b, _ := os.ReadFile(filepath.Join(d.dir, "note.txt")); string(b) != "original\n" {
		t.Errorf("note.txt after the rewind: %q", b)
	}
	if _, err := os.Stat(filepath.Join(d.dir, "made.txt")); !os.IsNotExist(err) {
		t.Errorf("made.txt is still there: %v", err)
	}
	d.until("the conversation's notice", func() bool { return strings.Contains(transcript(d), "the conversation is back to before prompt 1") })
	if tr := transcript(d); !strings.Contains(tr, "restored the files as they were before prompt 1") {
		t.Errorf("transcript:\n%s", tr)
	}
	if n := d.m.app.HistoryLen(); n != 0 {
		t.Errorf("the conversation has %d messages after the rewind", n)
	}
}
