package tui

import (
	"fmt"
	"strings"
	"time"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"

	"github.com/gantry-dev/gantry/internal/app"
	"github.com/gantry-dev/gantry/internal/llm"
)

// View implements tea.Model: only the live part of the screen; finished output is in
// the scrollback already.
func (m *Model) View() tea.View {
	if m.quitting {
		return tea.NewView("") // leave the scrollback, not a stale input box
	}
	content, inputRow := m.layout()
	v := tea.NewView(content)
	v.WindowTitle = "gantry"
	if c := m.input.Cursor(); c != nil && inputRow >= 0 {
		c.Position.Y += inputRow
		v.Cursor = c
		m.guard.laidOut(content, m.width, true, c.Position.Y, c.Position.X)
	} else {
		m.guard.laidOut(content, m.width, false, 0, 0)
	}
	return v
}

// live is the live area as text.
func (m *Model) live() string {
	s, _ := m.layout()
	return s
}

// layout renders the live area: the text being streamed, the running tools, a dialog
// or the input, and the status line, within the terminal's height. inputRow is the
// line the input box starts on (-1 when a dialog hides it).
func (m *Model) layout() (content string, inputRow int) {
	var bottom []string
	inputAt := -1 // in bottom's lines
	if len(m.dialogs) > 0 {
		bottom = append(bottom, m.dialogs[0].view(m))
	} else {
		if c := m.comp.view(m); c != "" {
			bottom = append(bottom, c)
		}
		inputAt = strings.Count(strings.Join(bottom, "\n"), "\n")
		if len(bottom) > 0 {
			inputAt++
		}
		bottom = append(bottom, m.input.View())
	}
	bottom = append(bottom, m.statusLine())
	tail := strings.Join(bottom, "\n")

	var top []string
	if s := strings.TrimSpace(m.stream); s != "" {
		top = append(top, m.liveText())
	} else if m.thinking.Len() > 0 {
		top = append(top, m.st.r(m.st.dim, "∴ thinking…"))
	}
	for _, t := range m.tools {
		line := t.line
		if !t.sub {
			line = "⏵ " + line
		}
		top = append(top, m.st.r(m.st.dim, clip(line, m.width-8)+fmt.Sprintf(" (%s)", elapsed(m.busyFor(t.started, t.pausedAt)))))
		for _, l := range t.tail {
			top = append(top, m.st.r(m.st.dim, "  "+clip(l, m.width-4)))
		}
	}
	top = append(top, m.draftLines()...)
	if m.running && len(m.tools) == 0 && len(m.drafts) == 0 && strings.TrimSpace(m.stream) == "" && m.thinking.Len() == 0 && len(m.dialogs) == 0 {
		top = append(top, m.st.r(m.st.dim, "… working ("+elapsed(m.busyFor(m.turnStart, m.turnPaused))+" · esc or ctrl+c to interrupt)"))
	}
	if len(top) == 0 {
		return tail, inputAt
	}
	head := strings.Split(strings.Join(top, "\n"), "\n")
	room := m.height - strings.Count(tail, "\n") - 2
	if room < 1 {
		room = 1
	}
	if len(head) > room {
		head = head[len(head)-room:]
	}
	if inputAt >= 0 {
		inputAt += len(head)
	}
	return strings.Join(head, "\n") + "\n" + tail, inputAt
}

// liveText renders the paragraph being streamed, once per change of it or of the
// width (View runs after every message, most of which change nothing here).
func (m *Model) liveText() string {
	if m.liveCache.text != m.stream || m.liveCache.width != m.width {
		m.liveCache.text, m.liveCache.width = m.stream, m.width
		m.liveCache.out = m.md.render(m.stream, m.width)
	}
	return m.liveCache.out
}

// statusLine: model, mode, tokens and cost, background tasks, queued prompts — or
// a hint for a few seconds.
func (m *Model) statusLine() string {
	if m.hint != "" && time.Now().Before(m.hintUntil) {
		return m.st.r(m.st.warn, m.hint)
	}
	parts := []string{m.model, "mode " + string(m.mode)}
	if m.running && len(m.dialogs) == 0 { // a question's box says its own keys
		parts = append(parts, "esc or ctrl+c to interrupt")
	}
	if u := m.usage.SessionUsage; u != (llm.Usage{}) {
		if s := m.meter.status(m.app.ContextWindow()); s != "" {
			parts = append(parts, s)
		}
		switch c := m.usage.SessionCost; {
		case c >= 0.01:
			parts = append(parts, fmt.Sprintf("$%.2f", c))
		case c > 0:
			parts = append(parts, "<$0.01")
		}
	}
	if n := len(m.app.BackgroundTasks()); n > 0 {
		parts = append(parts, fmt.Sprintf("%d background task(s)", n))
	}
	if m.app.Vibe() {
		parts = append(parts, "vibe")
	}
	if n := runningWorkers(m.app.Workers()); n > 0 {
		parts = append(parts, fmt.Sprintf("%d worker(s)", n))
	}
	if n := len(m.queued); n > 0 {
		parts = append(parts, fmt.Sprintf("%d queued", n))
	}
	if len(m.attached) > 0 {
		parts = append(parts, fmt.Sprintf("%d image(s) attached", len(m.attached)))
	}
	return m.st.r(m.st.status, clip(strings.Join(parts, " · "), m.width-1))
}

// banner is the first line of a session.
func (m *Model) banner() {
	v := m.opts.Version
	if v == "" {
		v = "dev"
	}
	// One line, whatever the width: the folder gives way first.
	head, tail := "gantry "+v, fmt.Sprintf(" · %s · ", m.model)
	rest := " · /help for commands"
	room := m.width - 1 - ansi.StringWidth(head+tail+rest)
	cwd := m.app.Cwd()
	if w := ansi.StringWidth(cwd); w > room {
		if room < 8 {
			cwd, rest = "", ""
			tail = strings.TrimSuffix(tail, " · ")
		} else {
			cwd = "…" + ansi.TruncateLeft(cwd, w-room+1, "")
		}
	}
	m.print(m.st.r(m.st.accent, head) + m.st.r(m.st.dim, tail+cwd+rest))
}

func short(n int64) string {
	switch {
	case n >= 1_000_000:
		return fmt.Sprintf("%.1fM", float64(n)/1e6)
	case n >= 10_000:
		return fmt.Sprintf("%dk", n/1000)
	case n >= 1000:
		return fmt.Sprintf("%.1fk", float64(n)/1000)
	}
	return fmt.Sprint(n)
}

func elapsed(d time.Duration) string {
	d = max(d, 0).Round(time.Second)
	if d < time.Minute {
		return fmt.Sprintf("%ds", int(d.Seconds()))
	}
	return fmt.Sprintf("%dm%02ds", int(d.Minutes()), int(d.Seconds())%60)
}

func clip(s string, n int) string {
	if n < 4 {
		n = 4
	}
	if r := []rune(s); len(r) > n {
		return string(r[:n-1]) + "…"
	}
	return s
}

// runningWorkers counts the vibe workers running.
func runningWorkers(ws []app.Worker) int {
	n := 0
	for _, w := range ws {
		if w.Status == "running" {
			n++
		}
	}
	return n
}
