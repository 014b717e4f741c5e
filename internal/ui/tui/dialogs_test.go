package tui

import (
	"strings"
	"testing"

	"github.com/gantry-dev/gantry/internal/llm"
	"github.com/gantry-dev/gantry/internal/llm/scripted"
)

// resultOf returns the text of the tool result for id in the model's last request.
func resultOf(t *testing.T, m *scripted.Provider, id string) string {
	t.Helper()
	reqs := m.Requests()
	for _, msg := range reqs[len(reqs)-1].Messages {
		for _, b := range msg.Content {
			if b.Type == llm.BlockToolResult && b.ToolCallID == id {
				return b.Text
			}
		}
	}
	t.Fatalf("no result for %s", id)
	return ""
}

// A plan approved with "accept edits" leaves plan mode for accept-edits.
func TestPlanApproval(t *testing.T) {
	m := scripted.New(
		scripted.Step{Calls: []scripted.Call{{ID: "p1", Name: "enter_plan_mode", Input: `{}`}}},
		scripted.Step{Calls: []scripted.Call{{ID: "p2", Name: "exit_plan_mode", Input: `{"plan":"1. Write the test.\n2. Fix the bug."}`}}},
		scripted.Step{Text: "Starting."},
	)
	d := newDriver(t, m, 100, 30, false, nil)
	d.m.app.SetMode("yolo") // enter_plan_mode needs no question
	d.typeText("plan it")
	d.press("enter")
	d.dialog()
	if !strings.Contains(d.screen(), "Ready to code?") || !strings.Contains(d.screen(), "Fix the bug.") {
		t.Fatalf("plan dialog:\n%s", d.screen())
	}
	golden(t, "plan_100x30_nocolor.txt", d.screen())
	d.press("enter") // "Yes, and accept edits"
	d.idle()
	if got := d.m.app.Mode(); got != "accept-edits" {
		t.Errorf("mode after approval: %s", got)
	}
}

// The plan card shows the rules approving grants, a broad one with its warning.
func TestPlanApprovalShowsItsRules(t *testing.T) {
	m := scripted.New(
		scripted.Step{Calls: []scripted.Call{{ID: "p1", Name: "enter_plan_mode", Input: `{}`}}},
		scripted.Step{Calls: []scripted.Call{{ID: "p2", Name: "exit_plan_mode", Input: `{"plan":"1. Run it.","allowed_prompts":["bash",{"tool":"Bash","prompt":"run tests"}]}`}}},
		scripted.Step{Text: "Starting."},
	)
	d := newDriver(t, m, 100, 30, false, nil)
	d.m.app.SetMode("yolo")
	d.typeText("plan it")
	d.press("enter")
	d.dialog()
	for _, want := range []string{"for this session only", "• bash", "⚠ allows every command without asking", "• bash: run tests", "they grant nothing"} {
		if !strings.Contains(d.screen(), want) {
			t.Errorf("the plan card lacks %q:\n%s", want, d.screen())
		}
	}
	d.press("2") // "Yes, and ask before edits"
	d.press("enter")
	d.idle()
	allow, _ := d.m.app.Rules()
	var session []string
	for _, r := range allow {
		if r.Source == "session" {
			session = append(session, r.String())
		}
	}
	if strings.Join(session, " ") != "bash" {
		t.Errorf("session rules after approval: %q", session)
	}
}

// A rejected plan carries the person's words back to the model.
func TestPlanRejectedWithFeedback(t *testing.T) {
	m := scripted.New(
		scripted.Step{Calls: []scripted.Call{{ID: "p1", Name: "enter_plan_mode", Input: `{}`}}},
		scripted.Step{Calls: []scripted.Call{{ID: "p2", Name: "exit_plan_mode", Input: `{"plan":"do it all at once"}`}}},
		scripted.Step{Text: "Replanning."},
	)
	d := newDriver(t, m, 100, 30, false, nil)
	d.m.app.SetMode("yolo")
	d.typeText("plan it")
	d.press("enter")
	d.dialog()
	d.press("3")
	d.press("enter")
	d.typeText("split it in two steps")
	d.press("enter")
	d.idle()
	if got := resultOf(t, m, "p2"); !strings.Contains(got, "split it in two steps") {
		t.Errorf("the model read %q", got)
	}
}

// ask_user: multi-select toggles with space; free text is typed; a batch is asked
// card by card.
func TestAskUserMultiAndFreeText(t *testing.T) {
	m := scripted.New(
		scripted.Step{Calls: []scripted.Call{{ID: "q1", Name: "ask_user", Input: `{"questions":[{"header":"Targets","question":"Which platforms?","options":[{"label":"linux"},{"label":"mac"},{"label":"windows"}],"multi_select":true},{"header":"Name","question":"What is the binary called?","options":[{"label":"gantry"},{"label":"gz"}],"allow_free_text":true}]}`}}},
		scripted.Step{Text: "ok"},
	)
	d := newDriver(t, m, 100, 30, false, nil)
	d.typeText("build it")
	d.press("enter")
	d.dialog()
	if !strings.Contains(d.screen(), "(1 of 2)") {
		t.Errorf("batch card:\n%s", d.screen())
	}
	d.press("space") // linux
	d.press("down")
	d.press("down")
	d.press("space") // windows
	d.press("enter")
	d.until("the second card", func() bool { return strings.Contains(d.screen(), "(2 of 2)") })
	d.press("3") // "Type an answer…"
	d.press("enter")
	d.typeText("gizmo")
	d.press("enter")
	d.idle()
	got := resultOf(t, m, "q1")
	for _, want := range []string{"linux", "windows", "gizmo"} {
		if !strings.Contains(got, want) {
			t.Errorf("the answer %q lacks %q", got, want)
		}
	}
	if strings.Contains(got, "mac") {
		t.Errorf("mac was not chosen: %q", got)
	}
}
