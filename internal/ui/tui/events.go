package tui

import (
	"fmt"
	"github.com/charmbracelet/x/ansi"
	"strings"
	"time"

	"github.com/gantry-dev/gantry/internal/face"
	"github.com/gantry-dev/gantry/internal/tool"
	"github.com/gantry-dev/gantry/internal/ui/termtext"
)

// event applies one core event: finished things are printed, live ones kept.
func (m *Model) event(e face.Event) {
	switch e := e.(type) {
	case face.TextDelta:
		m.foldThinking()
		m.stream += e.Text
		if settled, rest := settle(m.stream); settled != "" {
			m.printMarkdown(settled)
			m.stream = rest
		}
	case face.ThinkingDelta:
		m.thinking.WriteString(e.Text)
	case face.Retry:
		m.drafts = nil // the failed attempt's calls
		m.settleStream()
		m.print(m.st.r(m.st.warn, fmt.Sprintf("↻ retrying the model request (attempt %d): %s", e.Attempt+1, termtext.FirstLine(e.Reason))))
	case face.Notice:
		m.settleStream()
		if e.Info {
			m.print(m.st.r(m.st.dim, "✓ "+e.Text))
		} else {
			m.print(m.st.r(m.st.warn, "⚠ "+e.Text))
		}
	case face.ExecBlocked:
		m.settleStream()
		m.print(m.st.r(m.st.warn, "⛔ "+e.Text()))
	case face.ModeChanged:
		m.mode = e.Mode // the status line shows it
	case face.ModelChanged:
		m.model = e.Model
	case face.ToolDrafting:
		m.draft(e)
	case face.ToolStarted:
		m.undraft(e.CallID)
		m.settleStream()
		m.tools = append(m.tools, liveTool{id: e.CallID, line: termtext.ToolLine(e.Call), note: e.Note, started: time.Now(), pausedAt: m.pausedNow()})
	case face.ToolFinished:
		m.finishTool(e.CallID, "", e)
	case face.TodoList:
		m.todos = e.Items
		m.settleStream()
		m.print(m.todoLines()...)
	case face.ToolOutput:
		for i := range m.tools {
			if m.tools[i].id == e.CallID {
				m.tools[i].tail = tailLines(e.Tail, m.app.PreviewLines())
			}
		}
	case face.TurnUsage:
		m.usage = e
		m.meter.observe(e)
		if m.byModel == nil {
			m.byModel = map[string]*modelUse{}
		}
		u := m.byModel[e.Model]
		if u == nil {
			u = &modelUse{}
			m.byModel[e.Model] = u
		}
		u.usage, u.cost, u.responses = u.usage.Add(e.Usage), u.cost+e.Cost, u.responses+1
	case face.TurnEnded:
		if !m.running { // a turn the app started (a hook's wake): it ends here
			m.settleStream()
			if line := termtext.CounterLine(e.Counters); line != "" {
				m.print(m.st.r(m.st.dim, line))
			}
		}
	case face.FromSubagent:
		switch sub := e.Event.(type) {
		case face.ToolStarted:
			m.tools = append(m.tools, liveTool{id: e.ID + "/" + sub.CallID, line: "⎿ [" + e.Label + "] " + termtext.ToolLine(sub.Call), started: time.Now(), pausedAt: m.pausedNow(), sub: true})
		case face.ToolFinished:
			m.finishTool(e.ID+"/"+sub.CallID, e.Label, sub)
		}
	}
}

// finishTool prints a call's line and its preview, or its diff.
func (m *Model) finishTool(id, subLabel string, e face.ToolFinished) {
	line, note := "", ""
	for i, t := range m.tools {
		if t.id == id {
			line, note = t.line, t.note
			m.tools = append(m.tools[:i], m.tools[i+1:]...)
			break
		}
	}
	if line == "" {
		line = termtext.ToolLine(e.Call)
	}
	if subLabel != "" { // a subagent's calls: one dim line, and a failure's first line
		m.print(m.st.r(m.st.dim, "  "+line))
		if e.Result.IsError {
			m.print(m.st.r(m.st.dim, "    "+termtext.FirstLine(e.Result.Text)))
		}
		return
	}
	if e.Cancelled {
		m.print(m.st.r(m.st.warn, line+" (interrupted)"))
		m.print(m.interruptedLines(e.Result)...)
		return
	}
	if e.Call.Brief {
		m.print(termtext.BriefLine(e.Call, e.Result))
		return
	}
	m.print(hangWrap(line, m.width-2, 3)...)
	if note != "" {
		m.print(m.st.r(m.st.dim, "  ("+note+")"))
	}
	if c := e.Call.Code; c != nil {
		m.print(m.codeBlock(c))
	}
	if e.Result.Display.Hidden && !e.Result.IsError {
		return
	}
	defer func() {
		for _, l := range termtext.DiagnosticLines(e.Result) {
			m.print(m.st.r(m.st.warn, l))
		}
	}()
	if d := e.Result.Display.Diff; d != "" && !e.Result.IsError {
		headline, _, _ := strings.Cut(e.Result.Text, "\n")
		m.print(m.st.r(m.st.dim, "  "+headline))
		m.print(m.diffLines(d, max(m.opts.PreviewLines*4, 12))...)
		return
	}
	n := m.opts.PreviewLines
	if strings.HasPrefix(id, "shell_") { // the person's own !command: all of it
		n = personShellLines
	}
	for _, l := range termtext.Preview(termtext.PreviewText(e.Result), n) {
		for _, r := range hangWrap(l, m.width-1, indentOf(l)) {
			m.print(m.st.r(m.st.dim, r))
		}
	}
}

// diffLines colours the lines of a unified diff, at most n of them.
func (m *Model) diffLines(diff string, n int) []string {
	lines := diffBody(diff)
	out := m.styleDiff(lines[:min(n, len(lines))], m.width)
	if more := len(lines) - n; more > 0 {
		out = append(out, m.st.r(m.st.dim, fmt.Sprintf("  … %d more diff line(s)", more)))
	}
	return out
}

// diffBody is a unified diff's lines without its file headers.
func diffBody(diff string) []string {
	var out []string
	for _, l := range strings.Split(strings.TrimRight(diff, "\n"), "\n") {
		if !strings.HasPrefix(l, "+++ ") && !strings.HasPrefix(l, "--- ") {
			out = append(out, l)
		}
	}
	return out
}

// styleDiff colours diff lines, indented and cut to width.
func (m *Model) styleDiff(lines []string, width int) []string {
	out := make([]string, 0, len(lines))
	for _, l := range lines {
		l = strings.ReplaceAll(l, "\t", "    ")
		if r := []rune(l); len(r) > max(width-4, 20) {
			l = string(r[:max(width-5, 19)]) + "…"
		}
		switch {
		case strings.HasPrefix(l, "+"):
			out = append(out, "  "+m.st.r(m.st.added, l))
		case strings.HasPrefix(l, "-"):
			out = append(out, "  "+m.st.r(m.st.removed, l))
		default:
			out = append(out, "  "+m.st.r(m.st.dim, l))
		}
	}
	return out
}

// settleStream prints the rest of the model's text (a tool call or the turn's end
// closes it).
func (m *Model) settleStream() {
	m.foldThinking()
	if strings.TrimSpace(m.stream) != "" {
		m.printMarkdown(m.stream)
	}
	m.stream = ""
	m.inText = false
}

// printMarkdown prints a settled part of the model's text, a blank line apart from
// the part before it.
func (m *Model) printMarkdown(text string) {
	if r := m.md.render(text, m.width); r != "" {
		if m.inText {
			m.print("")
		}
		m.print(r)
		m.inText = true
	}
}

// foldThinking prints the model's reasoning as one folded line; Ctrl+T shows it.
func (m *Model) foldThinking() {
	if m.thinking.Len() == 0 {
		return
	}
	m.lastThink = m.thinking.String()
	m.thinking.Reset()
	words := len(strings.Fields(m.lastThink))
	m.print(m.st.r(m.st.dim, fmt.Sprintf("∴ thought for %d words (ctrl+t shows it)", words)))
}

func (m *Model) todoLines() []string {
	out := make([]string, 0, len(m.todos))
	for _, it := range m.todos {
		out = append(out, "  "+termtext.TodoMark(it.Status)+" "+it.Content)
	}
	return out
}

// maxCodeLines bounds the source shown under a call.
const maxCodeLines = 15

// codeBlock is a call's source, highlighted as a Markdown code block of its language
// (at most maxCodeLines lines).
func (m *Model) codeBlock(c *tool.Code) string {
	lines := strings.Split(strings.TrimRight(c.Text, "\n"), "\n")
	more := ""
	if len(lines) > maxCodeLines {
		more = fmt.Sprintf("\n"+"  … %d more line(s)", len(lines)-maxCodeLines)
		lines = lines[:maxCodeLines]
	}
	fence := "```"
	for strings.Contains(c.Text, fence) {
		fence += "`"
	}
	return m.md.render(fence+c.Lang+"\n"+strings.Join(lines, "\n")+"\n"+fence, m.width) + m.st.r(m.st.dim, more)
}

// tailLines are the last n non-empty-ended lines of a running call's output, without
// terminal control sequences.
func tailLines(s string, n int) []string {
	if n <= 0 {
		n = 5
	}
	s = ansi.Strip(strings.TrimRight(strings.ReplaceAll(s, "\r\n", "\n"), "\n"))
	if s == "" {
		return nil
	}
	lines := strings.Split(s, "\n")
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	for i, l := range lines {
		if j := strings.LastIndexByte(l, '\r'); j >= 0 { // a progress bar redrawn in place
			lines[i] = l[j+1:]
		}
	}
	return lines
}
