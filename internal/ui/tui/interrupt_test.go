package tui

import (
	"strings"
	"testing"

	"github.com/gantry-dev/gantry/internal/llm/scripted"
	"github.com/gantry-dev/gantry/internal/procgroup/proctest"
)

// ctrl+c interrupts a running command as esc does: the command's process goes, the
// call's line stays in the scrollback with what it printed, and the program goes on.
func TestCtrlCInterruptsRunningCommandAndKeepsItsOutput(t *testing.T) {
	marker := "tui-ctrlc-marker"
	d := newDriver(t, scripted.New(
		scripted.Step{Calls: []scripted.Call{{ID: "b1", Name: "bash", Input: `{"command":"echo printed-before-ctrlc; sleep 30; echo ` + marker + `"}`}}},
		scripted.Step{Text: "after the interrupt"},
	), 100, 30, false, nil)
	d.m.app.SetMode("yolo")
	d.typeText("wait")
	d.press("enter")
	d.until("the command's first line", func() bool {
		return len(d.m.tools) == 1 && strings.Contains(strings.Join(d.m.tools[0].tail, "\n"), "printed-before-ctrlc") && proctest.Running(marker)
	})
	if s := d.m.statusLine(); !strings.Contains(s, "esc or ctrl+c to interrupt") {
		t.Errorf("the status line of a running turn does not say how to interrupt it: %q", s)
	}
	d.press("ctrl+c")
	d.idle()
	if proctest.Running(marker) {
		t.Error("the command outlived ctrl+c")
	}
	if d.m.quitting {
		t.Fatal("one ctrl+c during a turn quit")
	}
	tr := transcript(d)
	for _, want := range []string{"sleep 30", "(interrupted)", "printed-before-ctrlc", "[cancelled: the command was stopped", "⏹ interrupted"} {
		if !strings.Contains(tr, want) {
			t.Errorf("the scrollback lacks %q:\n%s", want, tr)
		}
	}
	if !strings.Contains(d.m.live(), "ctrl+c again to quit") {
		t.Errorf("no hint after the interrupt:\n%s", d.m.live())
	}
}

// A second ctrl+c while the turn still runs quits at once, and the running call's
// line and what it printed stay in the scrollback.
func TestCtrlCTwiceDuringATurnQuitsAndKeepsTheCall(t *testing.T) {
	marker := "tui-ctrlc2-marker"
	d := newDriver(t, scripted.New(
		scripted.Step{Calls: []scripted.Call{{ID: "b1", Name: "bash", Input: `{"command":"echo printed-line; sleep 30; echo ` + marker + `"}`}}},
	), 100, 30, false, nil)
	d.m.app.SetMode("yolo")
	d.typeText("wait")
	d.press("enter")
	d.until("the command's first line", func() bool {
		return len(d.m.tools) == 1 && strings.Contains(strings.Join(d.m.tools[0].tail, "\n"), "printed-line") && proctest.Running(marker)
	})
	d.press("ctrl+c")
	d.press("ctrl+c")
	if !d.m.quitting {
		t.Fatal("the second ctrl+c did not quit")
	}
	all := strings.Join(append(append([]string(nil), d.m.transcript...), d.m.out...), "\n")
	for _, want := range []string{"sleep 30", "(interrupted)", "printed-line"} {
		if !strings.Contains(all, want) {
			t.Errorf("the scrollback lacks %q after quitting:\n%s", want, all)
		}
	}
	// The program has ended (the driver does not go on after quitting): the
	// interrupt alone stops the command.
	proctest.WaitUntil(t, "the command's end", func() bool { return !proctest.Running(marker) })
}

// Between turns ctrl+c first clears the input; on an empty input it says that a
// second one quits.
func TestCtrlCClearsTheInputFirst(t *testing.T) {
	d := newDriver(t, scripted.New(), 80, 24, false, nil)
	d.typeText("half a thought")
	d.press("ctrl+c")
	if d.m.input.Value() != "" || d.m.quitting || strings.Contains(d.m.live(), "again to quit") {
		t.Fatalf("ctrl+c on a typed input: value %q, quitting %v, live:\n%s", d.m.input.Value(), d.m.quitting, d.m.live())
	}
	d.press("ctrl+c")
	if d.m.quitting || !strings.Contains(d.m.live(), "ctrl+c again to quit") {
		t.Fatalf("ctrl+c on the empty input: quitting %v, live:\n%s", d.m.quitting, d.m.live())
	}
	d.press("ctrl+c")
	if !d.m.quitting {
		t.Error("the second ctrl+c on the empty input did not quit")
	}
}
