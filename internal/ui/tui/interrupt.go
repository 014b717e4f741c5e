package tui

import (
	"fmt"
	"strings"
	"time"

	tea "charm.land/bubbletea/v2"

	"github.com/gantry-dev/gantry/internal/tool"
	"github.com/gantry-dev/gantry/internal/ui/termtext"
)

// quitWindow is how long after a ctrl+c a second one quits; the hint that says so
// shows as long.
const quitWindow = 2 * time.Second

// ctrlC interrupts the running turn and its command, as esc does; between turns it
// clears the input. A ctrl+c that interrupted, or one on an empty input, arms the
// next: pressed again within quitWindow, ctrl+c quits.
func (m *Model) ctrlC() tea.Cmd {
	if !m.quitArmed.IsZero() && time.Since(m.quitArmed) < quitWindow {
		m.quit()
		return nil
	}
	switch {
	case m.running:
		m.interrupt()
		m.armQuit("interrupted · press ctrl+c again to quit")
	case m.app.StopWakeTurn(): // a turn a hook's wake started
		m.armQuit("interrupted · press ctrl+c again to quit")
	case len(m.dialogs) > 0 || m.comp.active() || m.input.Value() != "":
		// Between turns ctrl+c first clears what is on screen: a dialog (/rewind,
		// a picker), the completion list, the input.
		for _, d := range m.dialogs {
			d.cancel()
		}
		m.dialogs = nil
		m.dialogsChanged()
		m.comp.close()
		m.input.Reset()
		m.quitArmed = time.Time{}
	default:
		m.armQuit("press ctrl+c again to quit")
	}
	return nil
}

// armQuit makes the next ctrl+c within quitWindow quit, and says hint as long.
func (m *Model) armQuit(hint string) {
	m.quitArmed = time.Now()
	m.hint, m.hintUntil = hint, m.quitArmed.Add(quitWindow)
}

// quit interrupts what runs and ends the program. The calls still running keep
// their line and what they printed in the scrollback, marked as interrupted (the
// turn's own end would print them, but the program ends first).
func (m *Model) quit() {
	m.interrupt()
	m.settleStream()
	for _, t := range m.tools {
		line := t.line
		if t.sub {
			line = "  " + line
		}
		m.print(m.st.r(m.st.warn, line+" (interrupted)"))
		for _, l := range t.tail {
			m.print(m.st.r(m.st.dim, "  "+l))
		}
	}
	m.tools = nil
	m.quitting = true
}

// interruptedLines are what an interrupted call printed before it was stopped, and
// how it ended: the last lines of its result (the end is what was happening, and
// says "[cancelled: …]"), dimmed and indented as a preview.
func (m *Model) interruptedLines(r tool.Result) []string {
	text := strings.TrimRight(termtext.PreviewText(r), "\n")
	if strings.TrimSpace(text) == "" {
		return nil
	}
	n := max(m.opts.PreviewLines, 1)
	all := strings.Split(text, "\n")
	var out []string
	if len(all) > n {
		out = append(out, m.st.r(m.st.dim, fmt.Sprintf("  … %d earlier line(s)", len(all)-n)))
	}
	for _, l := range tailLines(text, n) {
		out = append(out, m.st.r(m.st.dim, "  "+clip(l, max(m.width-4, 20))))
	}
	return out
}
