package tui

import (
	"context"
	"fmt"
	"strings"

	tea "charm.land/bubbletea/v2"

	"github.com/gantry-dev/gantry/internal/llm"
	printface "github.com/gantry-dev/gantry/internal/ui/print"
)

// replay prints a resumed session's conversation, shortly: the prompts, the answers
// and one line per tool call.
func (m *Model) replay() {
	msgs, err := m.app.Session.RawMessages()
	if err != nil {
		m.print(m.st.r(m.st.warn, "⚠ the session's history could not be read: "+err.Error()))
		return
	}
	m.print(m.st.r(m.st.dim, fmt.Sprintf("── resumed session %s (%d messages) ──", m.app.Session.ID(), len(msgs))))
	for _, msg := range msgs {
		for _, b := range msg.Content {
			switch {
			case b.Type == llm.BlockText && msg.Role == llm.RoleUser && !strings.HasPrefix(b.Text, "<hook-context>"):
				m.print("", m.st.r(m.st.user, "› ")+m.st.r(m.st.bold, firstLines(b.Text, 6)))
			case b.Type == llm.BlockText && msg.Role == llm.RoleAssistant:
				m.print(m.md.render(b.Text, m.width))
			case b.Type == llm.BlockToolUse:
				principal, _, _ := m.app.DescribeCall(b.ToolName, b.Input)
				m.print(m.st.r(m.st.dim, printface.ToolLine(b.ToolName, principal)))
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
	return func() tea.Msg {
		before := len(a.Agent.History())
		err := a.Agent.Compact(ctx, focus)
		return compactedMsg{before, len(a.Agent.History()), err}
	}
}

func (m *Model) compacted(msg compactedMsg) {
	m.running, m.cancel = false, nil
	switch {
	case msg.err != nil:
		m.print(m.st.r(m.st.warn, "⚠ the conversation was not compacted: "+msg.err.Error()))
	case msg.after < msg.before:
		m.print(m.st.r(m.st.dim, fmt.Sprintf("compacted: %d messages became %d", msg.before, msg.after)))
	default:
		m.print(m.st.r(m.st.dim, "there was nothing to compact yet"))
	}
}
