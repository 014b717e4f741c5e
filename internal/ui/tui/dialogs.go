package tui

import (
	"context"
	"fmt"
	"regexp"
	"strings"
	"sync"

	"charm.land/bubbles/v2/textinput"
	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"

	"github.com/gantry-dev/gantry/internal/face"
	"github.com/gantry-dev/gantry/internal/permission"
	"github.com/gantry-dev/gantry/internal/ui/termtext"
)

// choice is a list of options with a cursor, as each dialog shows one.
type choice struct {
	labels []string
	at     int
}

// move handles up/down, j/k and digits; it reports whether the key was its.
func (c *choice) move(k tea.KeyPressMsg) bool {
	switch s := k.String(); s {
	case "up", "k", "shift+tab":
		c.at = (c.at + len(c.labels) - 1) % len(c.labels)
	case "down", "j", "tab":
		c.at = (c.at + 1) % len(c.labels)
	default:
		if len(s) == 1 && s[0] >= '1' && s[0] <= '9' && int(s[0]-'1') < len(c.labels) {
			c.at = int(s[0] - '1')
			return true
		}
		return false
	}
	return true
}

func (c *choice) lines(m *Model, marks []bool) []string {
	out := make([]string, len(c.labels))
	for i, l := range c.labels {
		mark := ""
		if marks != nil {
			mark = "[ ] "
			if marks[i] {
				mark = "[x] "
			}
		}
		line := fmt.Sprintf("%d. %s%s", i+1, mark, l)
		if i == c.at {
			out[i] = m.st.r(m.st.selected, "› "+line)
		} else {
			out[i] = "  " + line
		}
	}
	return out
}

// frame draws a dialog's lines in a box as wide as the terminal allows.
func frame(m *Model, title string, body []string, help string) string {
	w := dialogWidth(m)
	var b, rows []string
	b = append(b, wrap(m.st.r(m.st.accent, title), w)...)
	for _, l := range body {
		rows = append(rows, wrap(l, w)...)
	}
	foot := wrap(m.st.r(m.st.dim, help), w)
	b = append(b, fitBody(m, rows, dialogRows(m)-len(b)-1-len(foot))...)
	b = append(b, "")
	b = append(b, foot...)
	return m.st.box.Width(w + 4).Render(strings.Join(b, "\n"))
}

// dialogWidth is the width of a dialog's text: the terminal's, up to 100 columns.
func dialogWidth(m *Model) int { return max(min(m.width, 100)-4, 20) }

// wrap breaks a line (styled or not) at word boundaries to width, a word longer than
// width where it must; the lines after the first keep the first one's indent, and
// under a list item ("› 1. …", "- …") they start under its text.
func wrap(l string, width int) []string {
	if ansi.StringWidth(l) <= width {
		return []string{l}
	}
	plain := ansi.Strip(l)
	indent := len(plain) - len(strings.TrimLeft(plain, " "))
	if m := listMarker().FindString(plain[indent:]); m != "" {
		indent += ansi.StringWidth(m)
	}
	if indent > width/2 {
		indent = 0
	}
	pad := strings.Repeat(" ", indent)
	first := ansi.Wrap(l, width, "")
	lines := strings.Split(first, "\n")
	if len(lines) <= 1 || indent == 0 {
		return lines
	}
	rest := ansi.Wrap(strings.Join(lines[1:], " "), width-indent, "")
	out := []string{lines[0]}
	for _, r := range strings.Split(rest, "\n") {
		out = append(out, pad+r)
	}
	return out
}

// listMarker is the start of a line that lists something: the choice cursor, a number,
// a dash.
var listMarker = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^(› |  )?(\d+\. |- |\[[ x]\] )+`) })

// permissionDialog asks whether a call may run.
type permissionDialog struct {
	req     face.PermissionRequest
	preview string // the diff of an edit
	c       choice
	answer  *once[permAnswer]
	// expanded shows the whole diff, scrolled to line scroll.
	expanded bool
	scroll   int
}

var permissionAnswers = []face.Answer{face.AllowOnce, face.AllowAlways, face.AllowAlwaysSaved, face.DenyOnce, face.DenyAlways}

func newPermissionDialog(req face.PermissionRequest) *permissionDialog {
	always := req.Always.String()
	labels := []string{
		"Yes",
		"Yes, and allow " + always + " for the rest of the session",
		"Yes, and save that to the project's .gantry/permissions.yaml",
		"No",
		"No, and refuse this call for the rest of the session",
	}
	return &permissionDialog{req: req, preview: req.Preview.Diff, c: choice{labels: labels}, answer: newOnce[permAnswer]()}
}

// diffRoom is how many diff lines the dialog shows: a few when folded, the screen's
// height when expanded.
func (d *permissionDialog) diffRoom(m *Model) int {
	if d.expanded {
		return max(m.height-14, 6)
	}
	return max(min(m.height-16, 16), 4)
}

func (d *permissionDialog) key(m *Model, k tea.KeyPressMsg) bool {
	if d.preview != "" {
		n := len(diffBody(d.preview))
		room := d.diffRoom(m)
		switch k.String() {
		case "d":
			d.expanded, d.scroll = !d.expanded, 0
			return false
		case "pgdown", "space", "ctrl+d":
			if d.expanded {
				d.scroll = min(d.scroll+room, max(n-room, 0))
				return false
			}
		case "pgup", "ctrl+u":
			if d.expanded {
				d.scroll = max(d.scroll-room, 0)
				return false
			}
		case "J", "shift+down":
			if d.expanded {
				d.scroll = min(d.scroll+1, max(n-room, 0))
				return false
			}
		case "K", "shift+up":
			if d.expanded {
				d.scroll = max(d.scroll-1, 0)
				return false
			}
		}
	}
	switch k.String() {
	case "y":
		d.answer.give(permAnswer{ans: face.AllowOnce})
		return true
	case "a":
		d.answer.give(permAnswer{ans: face.AllowAlways})
		return true
	case "n":
		d.answer.give(permAnswer{ans: face.DenyOnce})
		return true
	case "enter":
		d.answer.give(permAnswer{ans: permissionAnswers[d.c.at]})
		return true
	}
	d.c.move(k)
	return false
}

func (d *permissionDialog) paste(string) {}

func (d *permissionDialog) cancel() { d.answer.give(permAnswer{err: context.Canceled}) }

func (d *permissionDialog) view(m *Model) string {
	// No icon inside the box: terminals disagree on the width of emoji such as 🛠️,
	// which would break the box's right edge.
	body := []string{termtext.ToolText(d.req.Call)}
	if strings.Contains(d.req.Principal, "\n") {
		body = append(body, "")
		for _, l := range strings.Split(firstLines(d.req.Principal, 12), "\n") {
			body = append(body, "  "+l)
		}
	}
	help := "↑↓ or 1-5 choose · enter confirm · y yes · a always · n no · esc interrupt"
	if d.preview != "" {
		lines := diffBody(d.preview)
		room := d.diffRoom(m)
		from := min(d.scroll, max(len(lines)-room, 0))
		to := min(from+room, len(lines))
		body = append(body, "")
		body = append(body, m.styleDiff(lines[from:to], dialogWidth(m))...)
		switch {
		case d.expanded:
			body = append(body, m.st.r(m.st.dim, fmt.Sprintf("  diff lines %d–%d of %d · space/pgup scroll · d fold", from+1, to, len(lines))))
			help = "space/pgdown, pgup, shift+↑↓ scroll · d fold the diff · y yes · a always · n no · esc interrupt"
		case len(lines) > to:
			body = append(body, m.st.r(m.st.dim, fmt.Sprintf("  … %d more diff line(s): d shows the whole diff", len(lines)-to)))
			help = "↑↓ or 1-5 choose · enter confirm · d whole diff · y yes · a always · n no · esc interrupt"
		}
	}
	if d.req.Reason != "" {
		body = append(body, m.st.r(m.st.dim, "gantry asks because "+d.req.Reason+"."))
	}
	body = append(body, "")
	body = append(body, d.c.lines(m, nil)...)
	return frame(m, "Allow "+d.req.Name+"?", body, help)
}

// questionDialog asks ask_user's questions, one after another.
type questionDialog struct {
	qs      []face.Question
	at      int
	c       choice
	marks   []bool
	typing  bool
	text    textinput.Model
	answers [][]string
	answer  *once[userAnswer]
}

func newQuestionDialog(qs []face.Question) *questionDialog {
	d := &questionDialog{qs: qs, answer: newOnce[userAnswer](), text: textinput.New()}
	d.text.Placeholder = "type your answer"
	d.text.CharLimit = 2000
	d.begin()
	return d
}

// begin sets up the current question's choices: its options, free text, skip.
func (d *questionDialog) begin() {
	q := d.qs[d.at]
	var labels []string
	for _, o := range q.Options {
		l := o.Label
		if o.Description != "" {
			l += " — " + o.Description
		}
		labels = append(labels, l)
	}
	if q.AllowFreeText || len(q.Options) == 0 {
		labels = append(labels, "Type an answer…")
	}
	labels = append(labels, "Skip: let gantry decide")
	d.c = choice{labels: labels}
	d.marks = make([]bool, len(labels))
	d.typing = len(q.Options) == 0
	d.text.SetValue("")
	if d.typing {
		d.c.at = len(labels) - 2
		d.text.Focus()
	}
}

func (d *questionDialog) freeIndex() int {
	q := d.qs[d.at]
	if q.AllowFreeText || len(q.Options) == 0 {
		return len(q.Options)
	}
	return -1
}

func (d *questionDialog) key(m *Model, k tea.KeyPressMsg) bool {
	q := d.qs[d.at]
	skip := len(d.c.labels) - 1
	if d.typing {
		switch k.String() {
		case "enter":
			if strings.TrimSpace(d.text.Value()) == "" {
				return false
			}
			return d.next([]string{strings.TrimSpace(d.text.Value())})
		case "up", "shift+tab":
			d.typing = false
			d.text.Blur()
			d.c.move(k)
			return false
		}
		d.text, _ = d.text.Update(k)
		return false
	}
	switch k.String() {
	case "space":
		if q.MultiSelect && d.c.at < len(q.Options) {
			d.marks[d.c.at] = !d.marks[d.c.at]
		}
		return false
	case "enter":
		switch {
		case d.c.at == skip:
			return d.next(nil) // this question only: the others keep their answers
		case d.c.at == d.freeIndex():
			d.typing = true
			d.text.Focus()
			return false
		case q.MultiSelect:
			var picked []string
			for i, o := range q.Options {
				if d.marks[i] {
					picked = append(picked, o.Label)
				}
			}
			if len(picked) == 0 {
				picked = []string{q.Options[d.c.at].Label}
			}
			return d.next(picked)
		}
		return d.next([]string{q.Options[d.c.at].Label})
	}
	d.c.move(k)
	if d.c.at == d.freeIndex() && len(k.Text) > 0 && k.String() != "j" && k.String() != "k" && (k.Text[0] < '1' || k.Text[0] > '9') {
		d.typing = true
		d.text.Focus()
		d.text, _ = d.text.Update(k)
	}
	return false
}

// next records an answer (nil: skipped) and moves to the next question, or answers
// them all; skipping every question is passing.
func (d *questionDialog) next(ans []string) bool {
	d.answers = append(d.answers, ans)
	d.at++
	if d.at < len(d.qs) {
		d.begin()
		return false
	}
	for _, a := range d.answers {
		if a != nil {
			d.answer.give(userAnswer{ans: face.UserAnswer{Answers: d.answers}})
			return true
		}
	}
	d.answer.give(userAnswer{ans: face.UserAnswer{Passed: true}})
	return true
}

func (d *questionDialog) paste(text string) {
	if d.typing {
		d.text.SetValue(d.text.Value() + strings.ReplaceAll(text, "\n", " "))
		d.text.CursorEnd()
	}
}

func (d *questionDialog) cancel() { d.answer.give(userAnswer{err: context.Canceled}) }

func (d *questionDialog) view(m *Model) string {
	q := d.qs[d.at]
	title := "gantry asks"
	if q.Header != "" {
		title += ": " + q.Header
	}
	if len(d.qs) > 1 {
		title += fmt.Sprintf(" (%d of %d)", d.at+1, len(d.qs))
	}
	body := []string{m.st.r(m.st.bold, q.Question)}
	if q.Context != "" {
		body = append(body, m.st.r(m.st.dim, q.Context))
	}
	body = append(body, "")
	var marks []bool
	if q.MultiSelect {
		marks = d.marks
	}
	body = append(body, d.c.lines(m, marks)...)
	if d.typing {
		d.text.SetWidth(max(min(m.width, 100)-10, 20))
		body = append(body, "", "  "+d.text.View())
	}
	help := "↑↓ choose · enter confirm · esc interrupt"
	if q.MultiSelect {
		help = "↑↓ move · space toggle · enter confirm · esc interrupt"
	}
	return frame(m, title, body, help)
}

// planDialog asks to approve a plan.
type planDialog struct {
	plan     string
	grants   []string // what approving grants, one a line (face.PlanRequest.GrantLines)
	c        choice
	feedback textinput.Model
	typing   bool
	answer   *once[planAnswer]
}

func newPlanDialog(req face.PlanRequest) *planDialog {
	d := &planDialog{plan: req.Plan, grants: req.GrantLines(), answer: newOnce[planAnswer](), feedback: textinput.New()}
	d.c.labels = []string{"Yes, and accept edits", "Yes, and ask before edits", "No, keep planning (say what to change)"}
	d.feedback.Placeholder = "what should change in the plan?"
	return d
}

func (d *planDialog) key(m *Model, k tea.KeyPressMsg) bool {
	if d.typing {
		if k.String() == "enter" {
			d.answer.give(planAnswer{ans: face.PlanAnswer{Approved: false, Feedback: strings.TrimSpace(d.feedback.Value())}})
			return true
		}
		d.feedback, _ = d.feedback.Update(k)
		return false
	}
	if k.String() == "enter" {
		switch d.c.at {
		case 0:
			d.answer.give(planAnswer{ans: face.PlanAnswer{Approved: true, Mode: permission.ModeAcceptEdits}})
			return true
		case 1:
			d.answer.give(planAnswer{ans: face.PlanAnswer{Approved: true}})
			return true
		}
		d.typing = true
		d.feedback.Focus()
		return false
	}
	d.c.move(k)
	return false
}

func (d *planDialog) paste(text string) {
	if d.typing {
		d.feedback.SetValue(d.feedback.Value() + strings.ReplaceAll(text, "\n", " "))
	}
}

func (d *planDialog) cancel() { d.answer.give(planAnswer{err: context.Canceled}) }

func (d *planDialog) view(m *Model) string {
	plan := m.md.render(d.plan, min(m.width, 100)-6)
	lines := strings.Split(plan, "\n")
	// What approving grants is never cut: the plan gives it the room.
	if room := max(m.height-14-len(d.grants), 3); len(lines) > room {
		lines = append(lines[:room], m.st.r(m.st.dim, fmt.Sprintf("… %d more line(s) of the plan", len(lines)-room)))
	}
	body := append(lines, "")
	for _, g := range d.grants {
		switch {
		case strings.HasPrefix(strings.TrimSpace(g), "⚠"):
			body = append(body, m.st.r(m.st.warn, g))
		case strings.HasPrefix(g, "  "):
			body = append(body, g)
		default:
			body = append(body, m.st.r(m.st.bold, g))
		}
	}
	if len(d.grants) > 0 {
		body = append(body, "")
	}
	body = append(body, d.c.lines(m, nil)...)
	if d.typing {
		d.feedback.SetWidth(max(min(m.width, 100)-10, 20))
		body = append(body, "", "  "+d.feedback.View())
	}
	return frame(m, "Ready to code? Here is the plan:", body, "↑↓ choose · enter confirm · esc interrupt")
}
