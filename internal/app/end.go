package app

import (
	"context"
	"errors"
	"fmt"
	"os"
	"time"

	"github.com/gantry-dev/gantry/internal/face"
	"github.com/gantry-dev/gantry/internal/hook"
)

// A session's end: the SessionEnd hooks, then everything it holds closed in order.

// The reasons a session ends, for EndSession (SessionEnd's "reason").
const (
	EndClear           = hook.EndClear           // the person cleared the conversation
	EndResume          = hook.EndResume          // the person switched to another session
	EndPromptInputExit = hook.EndPromptInputExit // the person quit
	EndOther           = hook.EndOther           // anything else
)

// EndSession runs the SessionEnd hooks, once, with reason (EndClear, …), before the
// session's tools and store close: bounded by their own timeouts (1.5 seconds for a
// hook that gives none, 60 at most), never by a face's context. It returns what the
// person should read — failures, and the stderr of a hook that exited 2 — one
// sentence each, for the face to show as it can. Only a started session ends so;
// Close runs them with EndOther when the face did not.
func (a *App) EndSession(reason string) []string {
	a.mu.Lock()
	if !a.started || a.ended {
		a.mu.Unlock()
		return nil
	}
	a.ended = true
	a.mu.Unlock()
	if !a.hooks.Has(hook.SessionEnd) {
		return nil
	}
	o := a.hooks.Run(context.Background(), hook.SessionEnd, reason, map[string]any{"reason": reason})
	var out []string
	for _, w := range o.Warnings {
		out = append(out, "SessionEnd hook: "+w)
	}
	if o.Block && o.Reason != "" {
		out = append(out, "SessionEnd hook: "+o.Reason)
	}
	return out
}

// Close ends the session: the SessionEnd hooks run (reason EndOther, unless the face
// ran them with EndSession), the session's tools are closed (background tasks killed),
// the records flushed, the store closed, and the resources of an App that owns its
// pool closed, newest first. It returns what failed, joined; it is safe to call twice.
func (a *App) Close() error {
	a.mu.Lock()
	if a.closed {
		a.mu.Unlock()
		return nil
	}
	a.closed = true
	a.mu.Unlock()
	a.lostDone.Wait()
	a.stopWakes() // a turn an asyncRewake hook started is stopped; later wakes are dropped
	for _, w := range a.EndSession(EndOther) {
		a.emit(face.Notice{Text: w})
	}
	a.hooks.Close() // the async hooks still running are stopped
	if a.vibe != nil {
		if n := a.vibe.Running(); n > 0 {
			a.emit(face.Notice{Text: fmt.Sprintf("the session ends: %d vibe worker(s) still running are stopped", n)})
		}
	}
	a.stopWarmUp()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	var errs []error
	if a.scope != nil {
		errs = append(errs, a.scope.Close(ctx)) // the session's resources, its conversations' first
	}
	if a.records != nil {
		if err := a.records.Close(); err != nil {
			errs = append(errs, fmt.Errorf("storing the session's last records: %w", err))
		}
	}
	if a.transcript != nil {
		a.transcript.close()
	}
	if a.envDir != "" {
		_ = os.RemoveAll(a.envDir) // the SessionStart hooks' exports; the next start writes them again
	}
	if a.lease != nil {
		// A lease that cannot be given up (the disk is full) goes stale when this
		// process ends; said unless the store's failure was said already.
		a.mu.Lock()
		said := a.storeFailed != nil
		a.mu.Unlock()
		if err := a.lease.Release(); err != nil && !said {
			errs = append(errs, err)
		}
	}
	if a.store != nil {
		if err := a.store.Close(); err != nil {
			errs = append(errs, fmt.Errorf("closing the session store: %w", err))
		}
	}
	if a.ownPool && a.pool != nil {
		errs = append(errs, a.pool.Close(ctx))
	}
	if a.scratch != "" {
		if err := os.RemoveAll(a.scratch); err != nil {
			errs = append(errs, fmt.Errorf("removing the session's folder: %w", err))
		}
	}
	return errors.Join(errs...)
}
