package app

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/gantry-dev/gantry/internal/face"
	"github.com/gantry-dev/gantry/internal/tools/structural"
	"github.com/gantry-dev/gantry/internal/tools/task"
	"github.com/gantry-dev/gantry/internal/tools/todo"
)

// A session's start, once the face listens: servers connected, SessionStart hooks
// run, what failed said, a resumed session's lists put back.

// Start begins the session for a face that now listens: sink receives every event
// from here on, asker answers every question. It connects the MCP servers, runs the
// SessionStart hooks, sends face.SessionStarted, then what went wrong on the way
// (a server that failed, a hook that failed: notices, never fatal), and restores a
// resumed session's todo list and tasks. Start is called once.
func (a *App) Start(ctx context.Context, sink face.Sink, asker face.Asker) error {
	a.mu.Lock()
	if a.started || a.closed {
		a.mu.Unlock()
		return errors.New("the session was started already")
	}
	a.started, a.sink = true, sink
	a.mu.Unlock()
	a.asker.set(asker)
	if face.Nobody(asker) && !a.opts.ToolServer {
		a.agent.Config.System += nobodyNote
	}

	var notices []string
	if later, ok := asker.(face.TrustInTurn); ok && later.TrustInTurn() && !a.trust.Trusted() && !a.opts.ToolServer {
		a.trustLater.Store(true) // asked at the first prompt (trust.go)
	} else {
		notices = a.settleTrust(ctx, asker)
	}
	notices = append(notices, a.startOutputStyle()...)
	notices = append(notices, a.connectMCP(ctx)...)
	notices = append(notices, mcpRuleNotices(a.gate, a.reg)...)
	notices = append(notices, a.skillNotes...)
	a.mu.Lock()
	notices = append(notices, a.agentNotes...)
	a.mu.Unlock()
	if a.yoloRefused != "" {
		notices = append(notices, a.yoloRefused)
	}
	// What the sandbox cannot guarantee here is said once, when the probe is done:
	// probing starts a helper and bubblewrap, which a session's start need not wait
	// for (its first command would).
	a.lostDone.Add(1)
	go func() {
		defer a.lostDone.Done()
		for _, n := range a.sandbox.lost() {
			a.emit(face.Notice{Text: n})
		}
	}()
	context, warnings := a.sessionStart(ctx)
	a.noteStart(context)
	notices = append(notices, warnings...)
	for _, f := range a.cfg.Claude.Files {
		for _, s := range f.Skipped {
			notices = append(notices, f.Path+": "+s)
		}
	}
	a.emit(face.SessionStarted{SessionID: a.sess.ID(), Resumed: a.resumed, Provider: a.provider, Model: a.agent.Config.Model,
		Mode: a.gate.Mode(), Cwd: a.opts.Cwd, Tools: a.ToolNames(), ContextWindow: a.agent.Config.ContextWindow})
	for _, n := range notices {
		a.emit(face.Notice{Text: n})
	}
	if len(a.unfinished) > 0 {
		a.emit(face.Notice{Text: unfinishedNotice(a.unfinished)})
	}
	a.transcript.listen(func(text string) { a.emit(face.Notice{Text: text}) })
	a.warmUp()
	if a.resumed {
		if err := a.restoreLists(); err != nil {
			return err
		}
	}
	return nil
}

// emit sends an event to the face, once there is one.
func (a *App) emit(e face.Event) {
	a.mu.Lock()
	sink := a.sink
	a.mu.Unlock()
	if sink != nil {
		sink(e)
	}
}

// restoreLists puts back the todo list and the task board of a resumed session, and
// shows the list.
func (a *App) restoreLists() error {
	payloads := func(kind string) ([]json.RawMessage, error) {
		evs, err := a.sess.Events(kind)
		out := make([]json.RawMessage, len(evs))
		for i, e := range evs {
			out[i] = e.Payload
		}
		return out, err
	}
	p, err := payloads(todo.EventKind)
	if err != nil {
		return fmt.Errorf("reading the todo list: %w", err)
	}
	a.todos.Restore(todo.FromEvents(p))
	if p, err = payloads(task.EventKind); err != nil {
		return fmt.Errorf("reading the tasks: %w", err)
	}
	a.board.Restore(task.FromEvents(p))
	evs, err := a.sess.Events(structural.StagedEventKind, structural.ResolvedEventKind)
	if err != nil {
		return fmt.Errorf("reading the staged structural changes: %w", err)
	}
	kinds, bodies := make([]string, len(evs)), make([]json.RawMessage, len(evs))
	for i, e := range evs {
		kinds[i], bodies[i] = e.Kind, e.Payload
	}
	a.staged.Restore(kinds, bodies)
	if items := a.todos.Items(); len(items) > 0 {
		a.emit(face.TodoList{Items: items})
	}
	return nil
}
