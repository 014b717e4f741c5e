package app

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/gantry-dev/gantry/internal/face"
	"github.com/gantry-dev/gantry/internal/llm"
	"github.com/gantry-dev/gantry/internal/refs"
)

// One turn: a prompt expanded, run through the loop, its end stored and told.

// Run sends one prompt (with content a face attached after it: images, documents)
// and drives the loop to the model's final answer; it returns the TurnEnded it sent.
// One turn runs at a time: a prompt waits for a turn an asyncRewake hook started.
func (a *App) Run(ctx context.Context, prompt string, attached []llm.Block) face.TurnEnded {
	a.wake.turn.Lock()
	defer a.wake.turn.Unlock()
	return a.runTurn(ctx, prompt, attached)
}

// runTurn is Run, with the turn's lock held.
func (a *App) runTurn(ctx context.Context, prompt string, attached []llm.Block) face.TurnEnded {
	a.mu.Lock()
	started := a.started && !a.closed
	note, vibeNote := a.modeNote, a.vibeNote
	a.modeNote, a.vibeNote = false, false
	shellNotes := a.shellNotes
	a.shellNotes = nil
	a.mu.Unlock()
	for _, n := range shellNotes {
		attached = append(attached, llm.Block{Type: llm.BlockText, Text: n})
	}
	if !started {
		end := face.TurnEnded{StopReason: "error", Err: errors.New("the session is not started (a face must call Start) or is closed")}
		return end
	}
	if a.trustLater.Swap(false) {
		a.noteStart(a.trustInTurn(ctx))
	}
	prompt, undoCommand := a.runCommand(ctx, prompt)
	defer undoCommand()
	attached = append(attached, a.reminders(time.Now())...)
	if note {
		m := a.gate.Mode()
		attached = append(attached, llm.Block{Type: llm.BlockText,
			Text: fmt.Sprintf("<system-reminder>The user switched the permission mode to %s: %s.</system-reminder>", m, m.About())})
	}
	if vibeNote {
		text := "<system-reminder>The user turned vibe mode on: you can hand pieces of work to background workers (vibe_spawn, by tier: fast for mechanical work with a clear spec, good for design, judgement and review), follow them (vibe_list, vibe_wait), steer them (vibe_send) and stop them (vibe_kill).</system-reminder>"
		if !a.Vibe() {
			text = "<system-reminder>The user turned vibe mode off: the vibe tools are gone; workers still running finish by themselves.</system-reminder>"
		}
		attached = append(attached, llm.Block{Type: llm.BlockText, Text: text})
	}
	a.mu.Lock()
	failed := a.storeFailed
	a.mu.Unlock()
	if failed != nil {
		// The last turn stopped on the store: what it did after the failing record
		// is not stored. Go on from what is, as --continue would.
		r, err := a.sess.Resume()
		if err != nil {
			return face.TurnEnded{StopReason: "error", Err: fmt.Errorf("reading session %s again after the store failed: %w", a.sess.ID(), err)}
		}
		a.agent.SetHistory(r.Messages)
		a.toldDate = lastToldDate(r.Messages)
		if r.Results != nil {
			_ = a.agent.Store.AppendMessage(*r.Results)
		}
		if len(r.Unfinished) > 0 {
			a.emit(face.Notice{Text: unfinishedNotice(r.Unfinished)})
		}
	}
	a.cps.cur = prompt
	if a.records.Flush() == nil {
		a.cpSeq, _ = a.sess.LastSeq()
	}
	a.mu.Lock()
	a.running = true
	a.mu.Unlock()
	end := a.agent.RunWith(ctx, prompt, attached)
	a.mu.Lock()
	a.running = false
	a.mu.Unlock()
	a.afterTurn()
	a.mu.Lock()
	a.storeFailed = end.StoreErr
	a.mu.Unlock()
	return end
}

// ExpandPrompt resolves the @file:, @path and @skill: references of a prompt the
// person typed (see package refs), or marks "/name args" naming a custom command for
// Run to expand (see commands.go); "/name args" naming a skill is @skill:name (see
// skillCommand). notes says, one line each, what could not be resolved. Only a
// person's prompt is expanded: the model reads files through tools, under the
// permission gate.
func (a *App) ExpandPrompt(prompt string) (expanded string, notes []string) {
	if a.expandCommand(prompt) {
		return prompt, nil // "/name args": Run expands the custom command
	}
	r := refs.Expand(a.skillCommand(prompt), refs.Options{Cwd: a.opts.Cwd, MaxOutput: a.cfg.MaxOutput, Skills: a.skills.List()})
	return r.Prompt, r.Notes
}
