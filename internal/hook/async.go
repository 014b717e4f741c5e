package hook

import (
	"context"
	"sync"

	"github.com/gantry-dev/gantry/internal/tool"
)

// background holds the async hooks of a session (Claude Code's `async` and
// `asyncRewake`) while they run: they are not waited for, and Close stops them.
type background struct {
	ctx    context.Context
	cancel context.CancelFunc
	wg     sync.WaitGroup
}

func newBackground() *background {
	ctx, cancel := context.WithCancel(context.Background())
	return &background{ctx: ctx, cancel: cancel}
}

// detach starts the async runs in the background and returns the others, which the
// event waits for. What an async hook says decides nothing: its output is dropped.
func (r *Runner) detach(event string, runs []hookRun, env []string) []hookRun {
	kept := runs[:0:0]
	for i, rn := range runs {
		if !rn.s.async || rn.err != nil {
			kept = append(kept, rn)
			continue
		}
		r.bg.wg.Go(func() { r.runOne(r.bg.ctx, event, i, rn.s, rn.input, nil, env) })
	}
	return kept
}

// Close stops the async hooks still running and waits for them to end.
func (r *Runner) Close() {
	if r == nil {
		return
	}
	r.bg.cancel()
	r.bg.wg.Wait()
}

// subjectName is the name a hook's if matches a call without a Claude view by.
func subjectName(sub *tool.HookSubject) string {
	if sub == nil {
		return ""
	}
	return sub.Name
}
