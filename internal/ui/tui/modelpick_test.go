package tui

import (
	"strings"
	"testing"

	"github.com/gantry-dev/gantry/internal/llm/scripted"
)

// /model with no name lists the configured tiers, Claude's aliases and the known
// models, the current one marked; typing filters and enter switches.
func TestModelPicker(t *testing.T) {
	d := newDriver(t, scripted.New(), 100, 40, false, nil)
	d.typeText("/model")
	d.press("enter")
	if len(d.m.dialogs) != 1 {
		t.Fatalf("/model opened no list; live:\n%s", d.m.live())
	}
	live := d.m.live()
	for _, want := range []string{"claude-sonnet-4-5 (alias sonnet) ← current", "claude-haiku-4-5 (alias haiku)", "claude-opus-4-5"} {
		if !strings.Contains(live, want) {
			t.Errorf("the model list lacks %q:\n%s", want, live)
		}
	}
	for _, r := range "haiku" {
		d.press(string(r))
	}
	d.press("enter")
	d.until("the model's change", func() bool { return d.m.model == "claude-haiku-4-5" })
	if d.m.app.Model() != "claude-haiku-4-5" {
		t.Errorf("the session's model is %s", d.m.app.Model())
	}
}
