package tui

import (
	"strings"
	"testing"

	"github.com/gantry-dev/gantry/internal/llm/scripted"
)

// !command runs the person's command, shows its output, and the next model request
// carries command and output; a deny rule still holds.
func TestBangCommand(t *testing.T) {
	m := scripted.New(scripted.Step{Text: "I see the listing."})
	d := newDriver(t, m, 100, 30, false, nil)
	d.typeText("!echo listed-by-the-person")
	d.press("enter")
	d.idle()
	if tr := transcript(d); !strings.Contains(tr, "listed-by-the-person") || !strings.Contains(tr, "! echo") {
		t.Fatalf("the command's output is not shown:\n%s", tr)
	}
	d.typeText("what did I list?")
	d.press("enter")
	d.idle()
	reqs := m.Requests()
	if len(reqs) != 1 {
		t.Fatalf("%d model requests", len(reqs))
	}
	var all strings.Builder
	for _, msg := range reqs[0].Messages {
		for _, b := range msg.Content {
			all.WriteString(b.Text)
		}
	}
	if s := all.String(); !strings.Contains(s, "<bash-input>echo listed-by-the-person</bash-input>") || !strings.Contains(s, "<bash-stdout>listed-by-the-person") {
		t.Errorf("the model's request lacks the command: %s", s)
	}
}
