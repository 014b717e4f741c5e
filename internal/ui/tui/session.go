package tui

import (
	"context"
	"fmt"

	tea "charm.land/bubbletea/v2"

	"github.com/gantry-dev/gantry/internal/app"
	"github.com/gantry-dev/gantry/internal/llm"
	"github.com/gantry-dev/gantry/internal/ui/termtext"
)

// replay prints a resumed session's conversation, shortly: the prompts, the answers
// and one line per tool call.
func (m *Model) replay() {
	msgs, err := m.app.Transcript()
	if err != nil {
		m.print(m.st.r(m.st.warn, "⚠ the session's history could not be read: "+err.Error()))
		return
	}
	m.print(m.st.r(m.st.dim, fmt.Sprintf("── resumed session %s (%d messages) ──", m.app.SessionID(), len(msgs))))
	for _, msg := range msgs {
		for _, b := range msg.Content {
			switch {
			case b.Type == llm.BlockText && msg.Role == llm.RoleUser && !app.Added(b):
				m.print("", m.st.r(m.st.user, "› ")+m.st.r(m.st.bold, firstLines(b.Text, 6)))
			case b.Type == llm.BlockText && msg.Role == llm.RoleAssistant:
				m.print(m.md.render(b.Text, m.width))
			case b.Type == llm.BlockToolUse:
				m.print(m.st.r(m.st.dim, termtext.ToolLine(m.app.DescribeCall(b.ToolName, b.Input))))
			}
		}
	}
	m.print(m.st.r(m.st.dim, "── end of the resumed session ──"))
}

// compactedMsg ends a /compact between turns.
type compactedMsg struct {
	before, after int
	err           error
}

// startCompaction compacts the conversation in the background.
func (m *Model) startCompaction(focus string) tea.Cmd {
	a := m.app
	ctx, cancel := context.WithCancel(context.Background())
	m.running, m.cancel = true, cancel
	send := m.sendFn
	return func() tea.Msg {
		before, after, err := a.Compact(ctx, focus)
		send(compactedMsg{before, after, err}) // behind the compaction's own events
		return nil
	}
}

func (m *Model) compacted(msg compactedMsg) {
	m.running, m.cancel = false, nil
	switch {
	case msg.err != nil:
		m.print(m.st.r(m.st.warn, "⚠ the conversation was not compacted: "+msg.err.Error()))
	case msg.after < msg.before:
		// The compaction's own notice said it; the meter waits for the next request.
		m.meter = contextMeter{}
	default:
		m.print(m.st.r(m.st.dim, "there was nothing to compact yet"))
	}
}
