// Package termtext is the text the terminal faces (print mode and the terminal UI)
// show alike: a tool's line, the preview lines of its output, the counters of a turn,
// the marks of a todo list. Everything it shows of a tool comes from the tool's own
// definition (tool.Call): no tool is known here by its name.
package termtext

import (
	"fmt"
	"strings"
	"time"

	"github.com/gantry-dev/gantry/internal/face"
	"github.com/gantry-dev/gantry/internal/tool"
)

// ToolLine is "<icon> <tool>: <principal argument>", on one line (seed 000's format).
func ToolLine(c tool.Call) string {
	icon := c.Icon
	if icon == "" {
		icon = tool.DefaultIcon
	}
	if (c.Brief || c.Code != nil) && c.Title != "" {
		return icon + " " + c.Title
	}
	principal := strings.ReplaceAll(strings.TrimSpace(c.Principal), "\n", "⏎")
	if r := []rune(principal); len(r) > 200 {
		principal = string(r[:200]) + "…"
	}
	if principal == "" {
		return fmt.Sprintf("%s %s", icon, c.Name)
	}
	return fmt.Sprintf("%s %s: %s", icon, c.Name, principal)
}

// BriefLine is the one line a Brief call shows once finished: its tool line and its
// result's summary.
func BriefLine(c tool.Call, r tool.Result) string {
	mark := " → "
	if r.IsError {
		mark = " ✗ "
	}
	return ToolLine(c) + mark + tool.Summary(r)
}

// ToolText is a tool line without its icon: "<tool>: <principal argument>" (inside a
// dialog's box, where terminals disagree on the width of emoji).
func ToolText(c tool.Call) string {
	c.Icon = "x"
	return strings.TrimPrefix(ToolLine(c), "x ")
}

// CodeLines are a call's source (Call.Code) as plain lines under its line, at most
// n of them, each "  │ " and the source line (nil when the call has none).
func CodeLines(c tool.Call, n int) []string {
	if c.Code == nil {
		return nil
	}
	lines := strings.Split(strings.TrimRight(c.Code.Text, "\n"), "\n")
	more := 0
	if len(lines) > n {
		more, lines = len(lines)-n, lines[:n]
	}
	out := make([]string, 0, len(lines)+1)
	for _, l := range lines {
		if r := []rune(l); len(r) > 160 {
			l = string(r[:160]) + "…"
		}
		out = append(out, "  │ "+l)
	}
	if more > 0 {
		out = append(out, fmt.Sprintf("  │ … %d more line(s)", more))
	}
	return out
}

// Preview returns up to n lines of a result's output, indented, or "(no output)".
func Preview(text string, n int) []string {
	text = strings.TrimRight(text, "\n")
	if strings.TrimSpace(text) == "" {
		return []string{"  (no output)"}
	}
	lines := strings.Split(text, "\n")
	more := 0
	if len(lines) > n {
		more = len(lines) - n
		lines = lines[:n]
	}
	out := make([]string, 0, len(lines)+1)
	for _, l := range lines {
		out = append(out, "  "+cutLong(l))
	}
	if more > 0 {
		out = append(out, fmt.Sprintf("  … %d more line(s)", more))
	}
	return out
}

// PreviewText is what the preview lines show of a result: the face's own preview or
// note when the tool gave one; for a change, its headline and the changed lines of
// its diff; else the text the model read.
func PreviewText(r tool.Result) string {
	switch {
	case r.Display.Preview != "":
		return r.Display.Preview
	case r.Display.Note != "":
		return r.Display.Note
	case r.Display.Diff != "" && !r.IsError:
		headline, _, _ := strings.Cut(r.Text, "\n")
		var b strings.Builder
		b.WriteString(headline)
		for _, l := range strings.Split(r.Display.Diff, "\n") {
			if (strings.HasPrefix(l, "+") || strings.HasPrefix(l, "-")) && !strings.HasPrefix(l, "+++ ") && !strings.HasPrefix(l, "--- ") {
				b.WriteString("\n")
				b.WriteString(l)
			}
		}
		return b.String()
	}
	return r.Text
}

// DiagnosticLines are the lines a face shows under a call for the diagnostics its
// write introduced (none for a failed call), at most 10 and a count of the rest.
func DiagnosticLines(r tool.Result) []string {
	if r.IsError || len(r.Display.Diagnostics) == 0 {
		return nil
	}
	const most = 10
	ds := r.Display.Diagnostics
	out := make([]string, 0, min(len(ds), most)+1)
	for _, d := range ds[:min(len(ds), most)] {
		if rs := []rune(d); len(rs) > 160 {
			d = string(rs[:160]) + "…"
		}
		out = append(out, "  ⚠ "+d)
	}
	if len(ds) > most {
		out = append(out, fmt.Sprintf("  ⚠ … %d more diagnostic(s)", len(ds)-most))
	}
	return out
}

// CounterLine formats the counters that are not zero, e.g. "⚙ 1 command(s)  📝 2 file op(s)".
func CounterLine(c face.Counters) string {
	var parts []string
	if c.Commands > 0 {
		parts = append(parts, fmt.Sprintf("⚙ %d command(s)", c.Commands))
	}
	if c.FileOps > 0 {
		parts = append(parts, fmt.Sprintf("📝 %d file op(s)", c.FileOps))
	}
	if c.Skills > 0 {
		parts = append(parts, fmt.Sprintf("📖 %d skill(s)", c.Skills))
	}
	return strings.Join(parts, "  ")
}

// TodoMark is the box a todo item of that status shows.
func TodoMark(status string) string {
	switch status {
	case "completed":
		return "☑"
	case "in_progress":
		return "◐"
	default:
		return "☐"
	}
}

// FirstLine is the first line of s, trimmed and cut at 160 characters.
func FirstLine(s string) string {
	l, _, _ := strings.Cut(strings.TrimSpace(s), "\n")
	if r := []rune(l); len(r) > 160 {
		l = string(r[:160]) + "…"
	}
	return l
}

// When is a moment as a person reads it beside a list: the clock time today, with the
// day before that, with the year in another year; "" for the zero time.
func When(t, now time.Time) string {
	if t.IsZero() {
		return ""
	}
	t, now = t.Local(), now.Local()
	switch y, m, d := t.Date(); {
	case y == now.Year() && m == now.Month() && d == now.Day():
		return t.Format("15:04")
	case y == now.Year():
		return t.Format("Jan 2 15:04")
	}
	return t.Format("2006-01-02 15:04")
}
