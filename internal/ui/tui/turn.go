package tui

import (
	"context"
	"fmt"
	"strings"
	"time"

	tea "charm.land/bubbletea/v2"

	"github.com/gantry-dev/gantry/internal/face"
	"github.com/gantry-dev/gantry/internal/llm"
	"github.com/gantry-dev/gantry/internal/ui/termtext"
)

// submit handles what the person sent: a slash command, or a prompt (queued when a
// turn runs).
func (m *Model) submit(text string) tea.Cmd {
	text = strings.TrimSpace(text)
	if text == "" && len(m.attached) == 0 {
		return nil
	}
	if text != "" {
		if err := m.hist.Add(text, m.app.Cwd()); err != nil {
			m.say("the prompt history could not be saved: " + err.Error())
		}
	}
	m.hist.Reset()
	if strings.HasPrefix(text, "/") && len(m.attached) == 0 {
		if cmd, ok := m.command(text); ok {
			return cmd
		}
	}
	if cmd, ok := strings.CutPrefix(text, "!"); ok && strings.TrimSpace(cmd) != "" && len(m.attached) == 0 && !m.running {
		return m.startShell(strings.TrimSpace(cmd))
	}
	if m.running {
		m.queued = append(m.queued, text)
		m.say(fmt.Sprintf("queued; it runs when this turn ends (%d waiting)", len(m.queued)))
		return nil
	}
	return m.startTurn(text)
}

// startTurn prints the prompt and runs it in the background.
func (m *Model) startTurn(text string) tea.Cmd {
	m.print("", m.st.r(m.st.user, "› ")+m.st.r(m.st.bold, firstLines(text, 6)))
	for i := range m.attached {
		m.print(m.st.r(m.st.dim, fmt.Sprintf("  [image %d attached]", i+1)))
	}
	var attached []llm.Block
	for _, img := range m.attached {
		attached = append(attached, llm.Block{Type: llm.BlockImage, Images: []llm.Image{img}})
	}
	m.attached = nil
	m.app.SetTitle(text)
	expanded, notes := m.app.ExpandPrompt(text)
	for _, n := range notes {
		m.print(m.st.r(m.st.warn, "⚠ "+n))
	}
	a := m.app
	return m.background(func(ctx context.Context) face.TurnEnded { return a.Run(ctx, expanded, attached) })
}

// background runs a turn's work (a prompt, a !command) off the UI: esc cancels its
// context, and its end comes through the pump, behind the turn's own events.
func (m *Model) background(run func(ctx context.Context) face.TurnEnded) tea.Cmd {
	ctx, cancel := context.WithCancel(context.Background())
	m.running, m.cancel, m.turnStart, m.turnPaused = true, cancel, time.Now(), m.pausedNow()
	ended, send := make(chan struct{}), m.sendFn
	m.ended = ended
	return tea.Batch(m.tick(), func() tea.Msg {
		defer close(ended)
		send(turnDoneMsg{run(ctx)})
		return nil
	})
}

// startShell runs the person's !command as a turn of its own: its output shows live,
// esc stops it, and the model reads command and output with the next prompt.
func (m *Model) startShell(command string) tea.Cmd {
	m.print("", m.st.r(m.st.user, "! ")+m.st.r(m.st.bold, firstLines(command, 6)))
	a := m.app
	return m.background(func(ctx context.Context) face.TurnEnded {
		a.Shell(ctx, command)
		end := face.TurnEnded{StopReason: "end_turn"}
		if ctx.Err() != nil {
			end.StopReason = "cancelled"
		}
		return end
	})
}

// turnDone closes a turn: the rest of the text, the counters, and the next queued
// prompt.
func (m *Model) turnDone(end face.TurnEnded) tea.Cmd {
	m.settleStream()
	for _, t := range m.tools { // calls the loop never finished (it always does; kept safe)
		m.print(m.st.r(m.st.dim, t.line+" (interrupted)"))
	}
	m.tools, m.drafts = nil, nil
	if s := termtext.CounterLine(end.Counters); s != "" {
		m.print(m.st.r(m.st.dim, s))
	}
	if end.StoreErr != nil && end.StopReason == "end_turn" {
		m.print(m.st.r(m.st.warn, "⚠ this turn was not all stored: "+end.StoreErr.Error()))
	}
	switch end.StopReason {
	case "end_turn":
	case "cancelled":
		m.print(m.st.r(m.st.warn, "⏹ interrupted"))
	case "max_turns":
		m.print(m.st.r(m.st.warn, "⚠ stopped after the turn limit (--max-turns)"))
	default:
		msg := end.StopReason
		if end.Err != nil {
			msg = end.Err.Error()
		}
		m.print(m.st.r(m.st.warn, "⚠ "+msg))
	}
	if m.cancel != nil {
		m.cancel()
	}
	m.running, m.cancel = false, nil
	m.dialogs = nil
	m.dialogsChanged()
	if len(m.queued) > 0 && end.StopReason != "cancelled" {
		next := m.queued[0]
		m.queued = m.queued[1:]
		if cmd, ok := strings.CutPrefix(next, "!"); ok && strings.TrimSpace(cmd) != "" {
			return m.startShell(strings.TrimSpace(cmd)) // a !command typed while a turn ran
		}
		return m.startTurn(next)
	}
	return nil
}

// interrupt cancels the running turn (Esc): running commands are killed, pending
// questions withdrawn, and queued prompts dropped.
func (m *Model) interrupt() {
	if m.cancel != nil {
		m.cancel()
	}
	for _, d := range m.dialogs {
		d.cancel()
	}
	m.dialogs = nil
	m.dialogsChanged()
	if len(m.queued) > 0 {
		m.say(fmt.Sprintf("dropped %d queued prompt(s)", len(m.queued)))
		m.queued = nil
	}
}

// pausedNow is how long questions have been on screen, in all (the elapsed times of a
// turn and its calls leave it out: waiting for the person is not working).
func (m *Model) pausedNow() time.Duration {
	if m.pauseStart.IsZero() {
		return m.paused
	}
	return m.paused + time.Since(m.pauseStart)
}

// dialogsChanged starts or stops the pause of the elapsed times as a question appears
// or the last one goes.
func (m *Model) dialogsChanged() {
	m.dialogScroll = 0
	switch open := len(m.dialogs) > 0; {
	case open && m.pauseStart.IsZero():
		m.pauseStart = time.Now()
	case !open && !m.pauseStart.IsZero():
		m.paused += time.Since(m.pauseStart)
		m.pauseStart = time.Time{}
	}
}

// busyFor is how long something that began at start (with pausedNow() then at
// pausedAt) has been working, questions left out.
func (m *Model) busyFor(start time.Time, pausedAt time.Duration) time.Duration {
	return time.Since(start) - (m.pausedNow() - pausedAt)
}

// firstLines shows at most n lines of a prompt.
func firstLines(s string, n int) string {
	lines := strings.Split(s, "\n")
	if len(lines) <= n {
		return s
	}
	return strings.Join(lines[:n], "\n") + fmt.Sprintf("\n  … %d more line(s)", len(lines)-n)
}
