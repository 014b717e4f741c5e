package app

import (
	"context"
	"errors"
	"fmt"

	"github.com/gantry-dev/gantry/internal/agent"
	"github.com/gantry-dev/gantry/internal/config"
	"github.com/gantry-dev/gantry/internal/face"
	"github.com/gantry-dev/gantry/internal/llm"
	"github.com/gantry-dev/gantry/internal/resource"
	"github.com/gantry-dev/gantry/internal/session"
	"github.com/gantry-dev/gantry/internal/tool"
	"github.com/gantry-dev/gantry/internal/tools/vibe"
)

// workerNote is added to a worker's system prompt.
const workerNote = `
You are a background worker: another agent gave you the brief below and reads only your
final message (it may send you more brief later, in this same conversation). Do the work
with your tools, then end with a final message that holds everything it needs: what you
did, the files you changed, what you found, what failed or is left.`

// Vibe reports whether vibe mode is on: the vibe tools are declared.
func (a *App) Vibe() bool { return a.vibeOn.Load() }

// SetVibe turns vibe mode on or off for the person and says so. Turning it off keeps
// the workers that run (they end by themselves, or at exit); their tools are no longer
// declared.
func (a *App) SetVibe(on bool) {
	if a.vibeOn.Swap(on) == on {
		return
	}
	text := "vibe mode on: the model can start background workers (vibe_spawn, vibe_list, vibe_wait, vibe_send, vibe_kill)"
	if !on {
		text = "vibe mode off"
		if n := a.vibe.Running(); n > 0 {
			text += fmt.Sprintf(": %d worker(s) still run until they end, or until gantry exits", n)
		}
	}
	a.emit(face.Notice{Text: text, Info: true})
	a.mu.Lock()
	a.vibeNote = true // the model is told with its next prompt
	a.mu.Unlock()
}

// Workers are the session's vibe workers, in the order they were spawned.
func (a *App) Workers() []vibe.State { return a.vibe.List() }

// StopWorkers stops every running worker (the person chose so) and says how many.
func (a *App) StopWorkers() int { return a.vibe.StopAll() }

// newWorker makes a worker's conversation: an Agent with a fresh history on the tier's
// model, the session's gate, asker, hooks and tools (but the vibe tools), its events
// shown as the worker's, its usage counted in the session's, and a stored session of
// its own linked to this one.
func (a *App) newWorker(spec vibe.Spec) (vibe.Made, error) {
	parent := a.agent
	model, notice := a.cfg.Models.Fast, ""
	if spec.Tier == vibe.Good {
		model = a.cfg.Models.Good
	}
	if model == "" {
		model = parent.Config.Model
		// Said once a session for the tier (the Board's Warn).
		notice = fmt.Sprintf("models.%s is not set in the config, so %s workers run on the session's model, %s", spec.Tier, spec.Tier, model)
	}
	ws, err := a.store.Create(session.Meta{Cwd: a.opts.Cwd, Provider: a.provider, Model: model, Title: spec.Label, Parent: a.sess.ID()})
	if err != nil {
		return vibe.Made{}, err
	}
	lease, err := ws.Lease()
	if err != nil {
		return vibe.Made{}, err
	}
	records := session.NewPipeline(ws)
	// Its own eval kernels and debug session in its conversation's pool, closed with
	// the worker (Close), which the Board calls once the worker's run has stopped.
	tools := parent.Tools.Without(vibe.Names...)
	held := a.ownTools(tools)
	w := &worker{records: records, lease: lease, parent: parent, held: held}
	w.agent = &agent.Agent{
		Provider: parent.Provider,
		Tools:    tools,
		Gate:     parent.Gate,
		Asker:    parent.Asker,
		Hooks:    parent.Hooks,
		Store:    records,
		Outputs:  parent.Outputs,
		Env:      tool.Env{Cwd: parent.Env.Cwd, SessionID: ws.ID(), Editor: parent.Env.Editor, Terminals: parent.Env.Terminals},
		Nested:   config.NewNested(parent.Env.Cwd, a.memory),
		Sink: func(e face.Event) {
			switch e.(type) {
			case face.TurnUsage, face.StepEnded, face.TurnEnded, face.SessionStarted:
				return // the worker's own counters; its usage joins the session's below
			}
			if parent.Sink != nil {
				parent.Sink(face.FromSubagent{ID: spec.ID, Label: spec.Label, Event: e})
			}
		},
		// A change while the person's turn runs comes after that turn's checkpoint;
		// one between turns is kept by the next prompt's (and named as made outside
		// the conversation's turns by a rewind).
		BeforeChange: func(ctx context.Context) {
			if a.turnRunning() {
				parent.NoteChange(ctx)
			}
		},

		MaxLevel: parent.MaxLevel,
		Config:   parent.Config,
	}
	w.agent.Config.Model = model
	w.agent.Config.ContextWindow = contextWindow(a.cfg, model)
	w.agent.Config.System = parent.Config.System + workerNote
	w.agent.Config.SaveRule = nil
	return vibe.Made{Worker: w, Model: model, Notice: notice}, nil
}

// worker is one vibe worker's conversation.
type worker struct {
	agent   *agent.Agent
	parent  *agent.Agent
	records *session.Pipeline
	lease   *session.Lease
	held    *resource.Pool // its conversation's resources: its own kernels and debugger
}

func (w *worker) Run(ctx context.Context, prompt string) (string, error) {
	before, cost := w.agent.Usage()
	end := w.agent.Run(ctx, prompt)
	after, costAfter := w.agent.Usage()
	w.parent.AddUsage(llm.Usage{InputTokens: after.InputTokens - before.InputTokens, OutputTokens: after.OutputTokens - before.OutputTokens,
		CacheReadTokens: after.CacheReadTokens - before.CacheReadTokens, CacheWriteTokens: after.CacheWriteTokens - before.CacheWriteTokens},
		costAfter-cost)
	switch {
	case end.StopReason == "end_turn":
		return end.Text, nil
	case end.StopReason == "cancelled":
		return end.Text, context.Canceled
	case end.Err != nil:
		return end.Text, end.Err
	}
	return end.Text, fmt.Errorf("it stopped early (%s)", end.StopReason)
}

func (w *worker) Close() error {
	return errors.Join(w.held.Close(context.Background()), w.records.Close(), w.lease.Release())
}
