package tui

import (
	"strings"
	"testing"

	"github.com/gantry-dev/gantry/internal/desktop/desktoptest"
	"github.com/gantry-dev/gantry/internal/llm/scripted"
)

// A screenshot shows as one line of its size and marks, not as its text.
func TestScreenshotLine(t *testing.T) {
	display := desktoptest.StartX(t, "640x480x24")
	t.Setenv("DISPLAY", display)
	t.Setenv("DBUS_SESSION_BUS_ADDRESS", "unix:path=/nonexistent")
	d := newDriver(t, scripted.New(
		scripted.Step{Calls: []scripted.Call{{ID: "s1", Name: "computer", Input: `{"action":"screenshot"}`}}},
		scripted.Step{Text: "seen"},
	), 100, 30, false, nil)
	d.m.app.SetMode("yolo")
	d.typeText("look at the screen")
	d.press("enter")
	d.idle()
	if tr := transcript(d); !strings.Contains(tr, "[screenshot 640x480, 0 elements]") {
		t.Errorf("no screenshot line:\n%s", tr)
	}
}
