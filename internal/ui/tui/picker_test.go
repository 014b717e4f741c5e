package tui

import (
	"strings"
	"testing"

	"github.com/gantry-dev/gantry/internal/llm/scripted"
)

// /resume with no id lists this folder's other sessions, newest first, with their
// first prompt and age; typing filters; enter resumes. The live session is not
// offered, and naming it says it is this one, not "another gantry".
func TestResumePicker(t *testing.T) {
	d := newDriver(t, scripted.New(scripted.Step{Text: "one"}, scripted.Step{Text: "two"}, scripted.Step{Text: "three"}), 100, 30, false, nil)
	var ids []string
	for _, p := range []string{"the apple question", "the banana question", "the cherry question"} {
		if len(ids) > 0 {
			d.typeText("/clear")
			d.press("enter")
		}
		ids = append(ids, d.m.app.SessionID())
		d.typeText(p)
		d.press("enter")
		d.idle()
	}
	d.typeText("/resume " + ids[2])
	d.press("enter")
	if tr := transcript(d); !strings.Contains(tr, "session "+ids[2]+" is the one you are in") && !strings.Contains(d.m.live(), "is the one you are in") {
		t.Errorf("/resume of the live session:\n%s\n%s", tr, d.m.live())
	}
	if strings.Contains(transcript(d), "another gantry") {
		t.Errorf("the live session was called another gantry's:\n%s", transcript(d))
	}

	d.typeText("/resume")
	d.press("enter")
	if len(d.m.dialogs) != 1 {
		t.Fatalf("/resume opened no picker; live:\n%s", d.m.live())
	}
	live := d.m.live()
	apple, banana := strings.Index(live, "the apple question"), strings.Index(live, "the banana question")
	if apple < 0 || banana < 0 || banana > apple || strings.Contains(live, "the cherry question") || !strings.Contains(live, "just now") {
		t.Fatalf("the picker does not list the other sessions newest first, with their age, without the live one:\n%s", live)
	}
	for _, r := range "appl" {
		d.press(string(r))
	}
	if live := d.m.live(); strings.Contains(live, "the banana question") || !strings.Contains(live, "filter: appl") {
		t.Fatalf("the filter kept banana:\n%s", live)
	}
	d.press("enter")
	if d.m.app.SessionID() != ids[0] || !strings.Contains(transcript(d), "resumed session "+ids[0]) {
		t.Fatalf("enter resumed %s, want %s", d.m.app.SessionID(), ids[0])
	}
	d.typeText("/resume")
	d.press("enter")
	d.press("esc")
	if len(d.m.dialogs) != 0 || d.m.app.SessionID() != ids[0] {
		t.Errorf("esc did not just close the picker: %d dialogs, session %s", len(d.m.dialogs), d.m.app.SessionID())
	}
}
