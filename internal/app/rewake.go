package app

import (
	"context"
	"fmt"
	"sync"

	"github.com/gantry-dev/gantry/internal/agent"
	"github.com/gantry-dev/gantry/internal/face"
	"github.com/gantry-dev/gantry/internal/hook"
	"github.com/gantry-dev/gantry/internal/llm"
)

// wakeState holds what asyncRewake hooks said (Claude Code's asyncRewake: a
// background hook whose exit 2 wakes the model) until the model reads it, and the
// turns it starts.
//
// A wake is a reminder kept for the model. While a turn runs it goes with the next
// request (after the results of the step's calls, agent.Pending); otherwise it goes
// with the next prompt, and a turn of its own starts when nothing else takes it: a
// goroutine waits for the running turn to end and, if the wake is still there, runs
// a turn whose prompt is the wake, as a face's prompt would, its events going to the
// face. In print mode (Options.OnePrompt) no turn is started: a wake that comes once
// the answer is given waits for a prompt that never comes, and gantry exits. Nor is
// one started in a session that runs no model (ToolServer, NoModel).
type wakeState struct {
	turn sync.Mutex // held while a turn runs: one runs at a time

	mu       sync.Mutex
	pending  []llm.Block
	starting bool // a goroutine waits to run a turn for the pending wakes
	closed   bool
	ctx      context.Context // the turns wakes start; cancelled by stop
	stop     context.CancelFunc
	cancel   context.CancelFunc // the running turn a wake started, nil when none
	wg       sync.WaitGroup
}

// take returns the pending wakes and forgets them.
func (w *wakeState) take() []llm.Block {
	w.mu.Lock()
	defer w.mu.Unlock()
	out := w.pending
	w.pending = nil
	return out
}

// takeWakes gives the pending wakes to a running turn (agent.Pending).
func (a *App) takeWakes() []llm.Block { return a.wake.take() }

// rewake keeps what an asyncRewake hook said for the model, says so to the person,
// and starts a turn for it unless one is waiting to start or the session starts none.
func (a *App) rewake(r hook.Rewake) {
	kept, start := a.wake.keep(wakeReminder(r), !a.opts.OnePrompt && !a.opts.ToolServer && !a.opts.NoModel)
	if !kept {
		return
	}
	a.emit(face.Notice{Text: wakeNotice(r), Info: true})
	if start {
		go a.wakeTurn()
	}
}

// hookLater keeps what an async hook said when it ended (its additionalContext) for
// the model's next request, as a wake is kept but starting no turn, as Claude Code
// gives it on the next turn; its systemMessage is shown to the person.
func (a *App) hookLater(l hook.Later) {
	text := ""
	if l.Context != "" {
		text = fmt.Sprintf("<system-reminder>The %s (async) added:\n%s\n</system-reminder>", l.Hook, l.Context)
	}
	if kept, _ := a.wake.keep(text, false); kept && l.Message != "" {
		a.emit(face.Notice{Text: fmt.Sprintf("%s (the %s, async)", l.Message, l.Hook), Info: true})
	}
}

// keep adds text ("": nothing) to the pending wakes unless the session has closed
// (kept false). With turns, it also claims the start of a turn for them when no
// goroutine waits to start one (start: the caller starts it).
func (w *wakeState) keep(text string, turns bool) (kept, start bool) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.closed {
		return false, false
	}
	if text != "" {
		w.pending = append(w.pending, llm.Block{Type: llm.BlockText, Text: text})
	}
	if turns && !w.starting {
		w.starting = true
		w.wg.Add(1)
		return true, true
	}
	return true, false
}

// wakeReminder is what the model is given of a wake: the hook's rewakeMessage, when
// it has one, comes before what it wrote, as Claude Code puts it.
func wakeReminder(r hook.Rewake) string {
	said := fmt.Sprintf("The %s (asyncRewake) exited with status 2 and said:", r.Hook)
	if r.Message != "" {
		said = fmt.Sprintf("The %s (asyncRewake) exited with status 2.\n%s", r.Hook, r.Message)
	}
	return fmt.Sprintf("<system-reminder>%s\n%s\n</system-reminder>", said, r.Text)
}

// wakeNotice is the line shown to the person: the hook's rewakeSummary, when it has
// one, with the hook named.
func wakeNotice(r hook.Rewake) string {
	if r.Summary != "" {
		return fmt.Sprintf("%s (the %s, asyncRewake): what it wrote wakes the model", r.Summary, r.Hook)
	}
	return fmt.Sprintf("the %s (asyncRewake) exited with status 2: what it wrote wakes the model", r.Hook)
}

// wakeTurn waits for the running turn, if any, to end and runs a turn for the wakes
// it left: none when it took them, or when the session is not started or is closed.
func (a *App) wakeTurn() {
	w := &a.wake
	defer w.wg.Done()
	w.turn.Lock()
	defer w.turn.Unlock()
	a.mu.Lock()
	ready := a.started && !a.closed
	a.mu.Unlock()
	w.mu.Lock()
	w.starting = false
	var pending []llm.Block
	if ready && !w.closed {
		pending, w.pending = w.pending, nil
	}
	w.mu.Unlock()
	if len(pending) == 0 {
		return
	}
	ctx, cancel := context.WithCancel(agent.Woken(w.ctx))
	defer cancel()
	w.mu.Lock()
	w.cancel = cancel
	w.mu.Unlock()
	a.runTurn(ctx, pending[0].Text, pending[1:])
	w.mu.Lock()
	w.cancel = nil
	w.mu.Unlock()
}

// StopWakeTurn interrupts the turn an asyncRewake hook started, if one runs (a
// face's turn is interrupted through its own context): a face calls it for the
// person's esc or cancel between its own turns. It tells whether there was one.
func (a *App) StopWakeTurn() bool {
	if a == nil {
		return false
	}
	w := &a.wake
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.cancel == nil {
		return false
	}
	w.cancel()
	return true
}

// stopWakes cancels a turn wakes started, waits for it, and drops the wakes to come.
func (a *App) stopWakes() {
	w := &a.wake
	w.mu.Lock()
	w.closed = true
	w.mu.Unlock()
	if w.stop != nil {
		w.stop()
	}
	w.wg.Wait()
}
