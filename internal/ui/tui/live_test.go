package tui

import (
	"strings"
	"testing"

	"github.com/gantry-dev/gantry/internal/llm/scripted"
)

// A running bash call shows the tail of its output in the live area.
func TestLiveOutputTail(t *testing.T) {
	d := newDriver(t, scripted.New(
		scripted.Step{Calls: []scripted.Call{{ID: "b1", Name: "bash", Input: `{"command":"for i in $(seq 1 30); do echo tick-$i; sleep 0.1; done"}`}}},
		scripted.Step{Text: "done ticking"},
	), 100, 30, false, nil)
	d.m.app.SetMode("yolo")
	d.typeText("tick")
	d.press("enter")
	d.until("the output's tail while it runs", func() bool {
		live := d.m.live()
		return d.m.running && strings.Contains(live, "tick-3") && strings.Contains(live, "⏵ ")
	})
	live := d.m.live()
	if strings.Contains(live, "tick-1\n") && strings.Count(live, "tick-") > 5 {
		t.Errorf("more than the last lines are shown:\n%s", live)
	}
	d.idle()
	if tr := transcript(d); !strings.Contains(tr, "tick-1") || !strings.Contains(tr, "25 more line(s)") {
		t.Errorf("the result's preview:\n%s", tr)
	}
}
