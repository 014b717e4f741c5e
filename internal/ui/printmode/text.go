package printmode

import (
	"fmt"
	"strings"

	"github.com/gantry-dev/gantry/internal/face"
	"github.com/gantry-dev/gantry/internal/ui/termtext"
)

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
		text := p.unprinted(e.Text)
		if text == "" {
			return
		}
		fmt.Fprint(p.out, text)
		p.atLineEnd = strings.HasSuffix(text, "\n")
	case face.Notice:
		p.endLine()
		if e.Info {
			fmt.Fprintln(p.out, p.dim("✓ "+e.Text))
		} else {
			fmt.Fprintln(p.out, p.dim("⚠ "+e.Text))
		}
	case face.ExecBlocked:
		p.endLine()
		fmt.Fprintln(p.out, p.dim("⛔ "+e.Text()))
	case face.ModeChanged:
		p.endLine()
		fmt.Fprintln(p.out, p.dim(fmt.Sprintf("mode: %s (%s)", e.Mode, e.Mode.About())))
	case face.TodoList:
		p.endLine()
		for _, it := range e.Items {
			fmt.Fprintf(p.out, "  %s %s\n", termtext.TodoMark(it.Status), it.Content)
		}
	case face.FromSubagent:
		// A subagent's work shows as its tool lines, marked with its task; its text is
		// its parent's tool result.
		switch sub := e.Event.(type) {
		case face.ToolStarted:
			p.endLine()
			fmt.Fprintln(p.out, p.dim("  ⎿ ["+e.Label+"] "+termtext.ToolLine(sub.Call)))
		case face.ToolFinished:
			if sub.Result.IsError {
				p.endLine()
				fmt.Fprintln(p.out, p.dim("  ⎿ ["+e.Label+"] "+termtext.FirstLine(sub.Result.Text)))
			}
		}
	case face.Retry:
		line := fmt.Sprintf("↻ retrying the model request (attempt %d): %s", e.Attempt+1, termtext.FirstLine(e.Reason))
		// What the failed attempt printed cannot be taken back: the new attempt's
		// text is printed from where it differs (see unprinted).
		p.printed, p.answer = p.answer, ""
		if p.opts.Diag != nil {
			p.out.Flush()
			fmt.Fprintln(p.opts.Diag, line)
			return
		}
		p.endLine()
		fmt.Fprintln(p.out, p.dim(line))
	case face.ToolStarted:
		p.answer, p.printed = "", ""
		p.endLine()
		line := termtext.ToolLine(e.Call)
		p.lines[e.CallID] = line
		if e.Call.Brief { // one line, once it has its result
			break
		}
		fmt.Fprintln(p.out, line)
		if e.Note != "" {
			fmt.Fprintln(p.out, p.dim("  ("+e.Note+")"))
		}
		for _, l := range termtext.CodeLines(e.Call, 15) {
			fmt.Fprintln(p.out, p.dim(l))
		}
		p.lastTool = e.CallID
	case face.ToolFinished:
		p.endLine()
		line := p.lines[e.CallID]
		delete(p.lines, e.CallID)
		if e.Call.Brief {
			fmt.Fprintln(p.out, termtext.BriefLine(e.Call, e.Result))
			p.lastTool = ""
			return
		}
		if e.Result.Display.Hidden && !e.Result.IsError {
			return
		}
		if p.lastTool != e.CallID && line != "" { // parallel calls: say which one this is
			fmt.Fprintln(p.out, p.dim("  ↳ "+line))
		}
		for _, l := range termtext.Preview(termtext.PreviewText(e.Result), p.opts.PreviewLines) {
			fmt.Fprintln(p.out, p.dim(l))
		}
		for _, l := range termtext.DiagnosticLines(e.Result) {
			fmt.Fprintln(p.out, l)
		}
		p.lastTool = ""
	case face.TurnEnded:
		p.answer, p.printed = "", ""
		// Seed 000: the counters once, after the turn, summed over all its responses.
		if s := termtext.CounterLine(e.Counters); s != "" {
			p.endLine()
			fmt.Fprintln(p.out, s)
		}
	}
}

// unprinted returns what of a text delta is not on the screen already: after a retry
// the new attempt's text is matched against what the failed one printed, and only
// what goes beyond it is printed; where the two differ, the new answer is printed
// from there on, after a line that says so.
func (p *Printer) unprinted(text string) string {
	start := len(p.answer)
	p.answer += text
	if p.printed == "" {
		return text
	}
	n := min(len(p.answer), len(p.printed))
	i := 0
	for i < n && p.answer[i] == p.printed[i] {
		i++
	}
	if i == n && len(p.answer) <= len(p.printed) {
		return "" // all of it is on the screen already
	}
	if i == n {
		p.printed = ""
		return p.answer[max(start, n):]
	}
	// The new attempt says something else: it is printed whole.
	p.printed = ""
	p.endLine()
	fmt.Fprintln(p.out, p.dim("↻ (the answer again, as the retry gave it:)"))
	return p.answer
}
