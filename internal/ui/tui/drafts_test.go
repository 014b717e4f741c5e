package tui

import (
	"strings"
	"testing"

	"github.com/gantry-dev/gantry/internal/llm/scripted"
)

// A write the model is still writing shows in the live area, growing — its file, then
// the lines of its content so far — before the call's own line replaces it.
func TestDraftGrowsBeforeTheCallStarts(t *testing.T) {
	d := newDriver(t, scripted.New(
		scripted.Step{StreamInput: true, Calls: []scripted.Call{{ID: "w1", Name: "write_file",
			Input: `{"path":"notes.txt","content":"one\ntwo\nthree\nfour\nfive\nsix\nseven\neight\n"}`}}},
		scripted.Step{Text: "written"},
	), 100, 30, false, nil)
	d.m.app.SetMode("yolo")
	d.typeText("write")
	d.press("enter")
	var drafts []string
	startedFirst := false
	d.until("the turn's end", func() bool {
		live := d.m.live()
		for _, l := range strings.Split(live, "\n") {
			if strings.Contains(l, "(writing…)") && (len(drafts) == 0 || drafts[len(drafts)-1] != l) {
				drafts = append(drafts, l)
			}
			if strings.HasPrefix(l, "⏵ ") && strings.Contains(l, "notes.txt") && len(drafts) == 0 {
				startedFirst = true
			}
		}
		return !d.m.running
	})
	if startedFirst || len(drafts) < 2 {
		t.Fatalf("drafts seen before the call started: %q", drafts)
	}
	if last := drafts[len(drafts)-1]; !strings.Contains(last, "notes.txt") || !strings.Contains(last, "8 lines") {
		t.Errorf("the last draft: %q", last)
	}
	if first := drafts[0]; strings.Contains(first, "8 lines") {
		t.Errorf("the first draft is already whole: %q", first)
	}
	if live := d.m.live(); strings.Contains(live, "(writing…)") {
		t.Errorf("a draft stayed after the turn:\n%s", live)
	}
}
