package print

import (
	"fmt"
	"strings"

	"github.com/gantry-dev/gantry/internal/face"
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
	case face.Retry:
		p.endLine()
		fmt.Fprintln(p.out, p.dim(fmt.Sprintf("↻ retrying the model request (attempt %d): %s", e.Attempt+1, e.Reason)))
	case face.ToolStarted:
		p.endLine()
		fmt.Fprintln(p.out, ToolLine(e.Name, e.Principal))
		p.lastTool = e.CallID
	case face.ToolFinished:
		p.endLine()
		if e.Result.Display.Hidden && !e.Result.IsError {
			return
		}
		if p.lastTool != e.CallID { // parallel calls: say which one this is
			fmt.Fprintln(p.out, p.dim(fmt.Sprintf("  ↳ %s", e.Name)))
		}
		text := e.Result.Text
		if e.Result.Display.Preview != "" {
			text = e.Result.Display.Preview
		}
		if e.Result.Display.Note != "" {
			text = e.Result.Display.Note
		}
		for _, l := range Preview(text, p.opts.PreviewLines) {
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
