package tui

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gantry-dev/gantry/internal/llm/scripted"
)

// /rewind lists every prompt of the live conversation: one without a checkpoint says
// it can rewind the conversation only, and does; prompts a rewind cut away are never
// offered again, nor is their checkpoint taken for a later prompt's.
func TestRewindListsEveryLivePrompt(t *testing.T) {
	d := newDriver(t, scripted.New(
		scripted.Step{Calls: []scripted.Call{{ID: "b1", Name: "bash", Input: `{"command":"echo changed > note.txt"}`}}},
		scripted.Step{Text: "changed it"},
		scripted.Step{Text: "just an answer"},
		scripted.Step{Text: "another answer"},
	), 120, 40, false, func(dir string) {
		if err := os.WriteFile(filepath.Join(dir, "note.txt"), []byte("original\n"), 0o644); err != nil {
			t.Fatal(err)
		}
	})
	d.m.app.SetMode("yolo")
	for _, p := range []string{"change the note", "only talk"} {
		d.typeText(p)
		d.press("enter")
		d.idle()
	}
	d.typeText("/rewind")
	d.press("enter")
	live := d.m.live()
	if !strings.Contains(live, "change the note — 1 file(s), +1 -1") || !strings.Contains(live, "only talk — no checkpoint: conversation only") {
		t.Fatalf("the rewind list:\n%s", live)
	}
	d.press("enter") // the last prompt: only talk
	if live := d.m.live(); !strings.Contains(live, "Conversation only (no checkpoint") || strings.Contains(live, "Files and conversation") {
		t.Fatalf("a prompt without a checkpoint offers:\n%s", live)
	}
	d.press("enter")
	d.until("the conversation's notice", func() bool {
		return strings.Contains(transcript(d), "the conversation is back to before “only talk”")
	})
	if n := d.m.app.HistoryLen(); n != 4 { // the first prompt, its call, its result, its answer
		t.Errorf("the conversation has %d messages after the rewind, want 4", n)
	}

	// Rewind the first prompt's conversation too; then a new prompt that changes
	// nothing: the list has that one only.
	d.typeText("/rewind")
	d.press("enter")
	if live := d.m.live(); strings.Contains(live, "only talk") || !strings.Contains(live, "change the note") {
		t.Fatalf("the list after the rewind:\n%s", live)
	}
	d.press("enter")
	d.press("down") // conversation only
	d.press("enter")
	d.until("the conversation's notice", func() bool { return strings.Contains(transcript(d), "back to before prompt 1") })
	d.typeText("a fresh start")
	d.press("enter")
	d.idle()
	d.typeText("/rewind")
	d.press("enter")
	live = d.m.live()
	if strings.Contains(live, "change the note") || strings.Contains(live, "only talk") || !strings.Contains(live, "a fresh start — no checkpoint: conversation only") {
		t.Fatalf("the list offers prompts cut away, or takes their checkpoint:\n%s", live)
	}
}
