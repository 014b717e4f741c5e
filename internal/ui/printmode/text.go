package print

import (
	"fmt"
	"strings"

	"github.com/gantry-dev/gantry/internal/face"
	"github.com/gantry-dev/gantry/internal/tool"
)

// Icon is the icon of a tool's line in the terminal.
func Icon(name string) string {
	switch name {
	case "bash", "task_kill":
		return "🛠️"
	case "read_skill":
		return "📖"
	case "read_file", "task_output":
		return "📄"
	case "write_file", "edit_file", "apply_patch":
		return "✏️"
	default:
		return "🔧"
	}
}

// ToolLine is "<icon> <tool>: <principal argument>", on one line.
func ToolLine(name, principal string) string {
	principal = strings.ReplaceAll(principal, "\n", "⏎")
	if r := []rune(principal); len(r) > 200 {
		principal = string(r[:200]) + "…"
	}
	if principal == "" {
		return fmt.Sprintf("%s %s", Icon(name), name)
	}
	return fmt.Sprintf("%s %s: %s", Icon(name), name, principal)
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
		if r := []rune(l); len(r) > 160 {
			l = string(r[:160]) + "…"
		}
		out = append(out, "  "+l)
	}
	if more > 0 {
		out = append(out, fmt.Sprintf("  … %d more line(s)", more))
	}
	return out
}

func (p *Printer) endLine() {
	if !p.atLineEnd {
		fmt.Fprintln(p.out)
		p.atLineEnd = true
	}
}

func (p *Printer) dim(s string) string {
	if p.opts.Color {
		return "\x1b[2m" + s + "\x1b[0m"
	}
	return s
}

func (p *Printer) text(e face.Event) {
	switch e := e.(type) {
	case face.TextDelta:
		if e.Text == "" {
			return
		}
		fmt.Fprint(p.out, e.Text)
		p.atLineEnd = strings.HasSuffix(e.Text, "\n")
	case face.Notice:
		p.endLine()
		fmt.Fprintln(p.out, p.dim("⚠ "+e.Text))
	case face.TodoList:
		p.endLine()
		for _, it := range e.Items {
			fmt.Fprintf(p.out, "  %s %s\n", TodoMark(it.Status), it.Content)
		}
	case face.FromSubagent:
		// A subagent's work shows as its tool lines, marked with its task; its text is
		// its parent's tool result.
		switch sub := e.Event.(type) {
		case face.ToolStarted:
			p.endLine()
			fmt.Fprintln(p.out, p.dim("  ⎿ ["+e.Label+"] "+ToolLine(sub.Name, sub.Principal)))
		case face.ToolFinished:
			if sub.Result.IsError {
				p.endLine()
				fmt.Fprintln(p.out, p.dim("  ⎿ ["+e.Label+"] "+FirstLine(sub.Result.Text)))
			}
		}
	case face.Retry:
		p.endLine()
		fmt.Fprintln(p.out, p.dim(fmt.Sprintf("↻ retrying the model request (attempt %d): %s", e.Attempt+1, e.Reason)))
	case face.ToolStarted:
		p.endLine()
		line := ToolLine(e.Name, e.Principal)
		fmt.Fprintln(p.out, line)
		p.lastTool = e.CallID
		p.lines[e.CallID] = line
	case face.ToolFinished:
		p.endLine()
		line := p.lines[e.CallID]
		delete(p.lines, e.CallID)
		if e.Result.Display.Hidden && !e.Result.IsError {
			return
		}
		if p.lastTool != e.CallID && line != "" { // parallel calls: say which one this is
			fmt.Fprintln(p.out, p.dim("  ↳ "+line))
		}
		for _, l := range Preview(PreviewText(e.Result), p.opts.PreviewLines) {
			fmt.Fprintln(p.out, p.dim(l))
		}
		p.lastTool = ""
	case face.StepEnded:
		if s := CounterLine(e.Counters); s != "" {
			p.endLine()
			fmt.Fprintln(p.out, s)
		}
	}
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
