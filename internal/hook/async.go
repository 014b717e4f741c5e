package hook

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os/exec"
	"strings"
	"sync"

	"github.com/gantry-dev/gantry/internal/tool"
)

// background holds the async hooks of a session (Claude Code's `async` and
// `asyncRewake`) while they run: they are not waited for, and Close stops them.
type background struct {
	ctx    context.Context
	cancel context.CancelFunc
	wg     sync.WaitGroup

	mu     sync.Mutex
	closed bool // Close has begun: what goes to the background now runs at once
}

// run runs f in a goroutine Close waits for; once Close has begun, f runs in the
// caller's (its ctx is done, so it ends soon), so that the WaitGroup gains nothing
// while Close waits on it.
func (b *background) run(f func()) {
	b.mu.Lock()
	if b.closed {
		b.mu.Unlock()
		f()
		return
	}
	b.wg.Add(1)
	b.mu.Unlock()
	go func() {
		defer b.wg.Done()
		f()
	}()
}

func newBackground() *background {
	ctx, cancel := context.WithCancel(context.Background())
	return &background{ctx: ctx, cancel: cancel}
}

// detach starts the async runs in the background and returns the others, which the
// event waits for. What an async hook says decides nothing: the additionalContext and
// systemMessage of its JSON go to Base.Later once it ends (later), and an asyncRewake
// hook that exits 2 wakes the model (rewake).
func (r *Runner) detach(event string, runs []hookRun, env []string) []hookRun {
	kept := runs[:0:0]
	for i, rn := range runs {
		if !rn.s.async || rn.err != nil {
			kept = append(kept, rn)
			continue
		}
		if rn.s.rewake && rn.s.kind == TypeCommand {
			r.bg.run(func() { r.rewake(event, rn.s, rn.input, env) })
			continue
		}
		r.bg.run(func() { r.runOne(r.bg.ctx, event, i, rn.s, rn.input, nil, env, true) })
	}
	return kept
}

// Close stops the async hooks still running and waits for them to end.
func (r *Runner) Close() {
	if r == nil {
		return
	}
	r.bg.mu.Lock()
	r.bg.closed = true
	r.bg.mu.Unlock()
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

// Rewake is what an asyncRewake hook said when it exited 2, for the model.
type Rewake struct {
	Event string // the event that ran the hook
	Hook  string // the hook, named as in sentences: PostToolUse hook `./check.sh`
	Text  string // its stderr, or its stdout when stderr is empty, trimmed
	// Message (the hook's rewakeMessage) goes before Text in what the model is
	// given; Summary (its rewakeSummary) is the line shown to the person. "": none.
	Message, Summary string
}

// rewake runs the asyncRewake hook s in the background and, when it exits 2, tells
// Base.Rewake what it wrote, as Claude Code wakes the model with it. Any other end
// (exit 0 or another status, a timeout, a failure to start) wakes nothing; a hook
// Close stopped wakes nothing either. One that declares itself async on its first
// line of stdout runs on for its asyncTimeout instead of its timeout, and wakes the
// same way.
func (r *Runner) rewake(event string, s *spec, input []byte, env []string) {
	ended := func(x execution) {
		text, ok := rewakeText(s, x)
		if !ok || r.bg.ctx.Err() != nil || r.base.Rewake == nil {
			return
		}
		r.base.Rewake(Rewake{Event: event, Hook: s.label(), Text: text, Message: s.rewakeMsg, Summary: s.rewakeSum})
	}
	x := execute(r.bg.ctx, newCommand(s.source, s.command, r.base.Cwd, s.environ(env), r.base.Policy), input, s.timeout, r.detacher(ended))
	if !x.declared {
		ended(x)
	}
}

// rewakeText is what a finished asyncRewake hook gives the model, and whether it
// wakes it at all: only an exit status of 2 does.
func rewakeText(s *spec, x execution) (string, bool) {
	var ee *exec.ExitError
	if x.startErr != nil || x.timedOut || x.cancelled || !errors.As(x.err, &ee) || ee.ExitCode() != 2 {
		return "", false
	}
	text := strings.TrimSpace(x.stderr)
	if text == "" {
		text = strings.TrimSpace(x.stdout)
	}
	if text == "" {
		text = fmt.Sprintf("The %s exited with status 2 without writing anything.", s.label())
	}
	return text, true
}

// Later is what an async hook said in JSON on its stdout when it ended: as Claude Code
// does, its additionalContext goes to the model with its next request (it wakes
// nothing) and its systemMessage is shown to the person.
type Later struct {
	Event   string // the event that ran the hook
	Hook    string // the hook, named as in sentences
	Context string // its additionalContext ("": none)
	Message string // its systemMessage ("": none)
}

// later tells Base.Later what the async hook s said in JSON once it ended (x): as
// Claude Code reads it, its response is the first line of its stdout that is a JSON
// object and no declaration (laterResponse). Anything else it did (a failure, a
// decision, plain text) is dropped: the event it ran for has gone on without it.
func (r *Runner) later(event string, s *spec, x execution) {
	line, ok := laterResponse(x.stdout)
	if !ok {
		return
	}
	x.stdout, x.stdoutTruncated = line, false
	v := judge(event, s, x)
	if v.context == "" && v.message == "" {
		return
	}
	if r.bg.ctx.Err() != nil || r.base.Later == nil {
		return
	}
	r.base.Later(Later{Event: event, Hook: s.label(), Context: v.context, Message: v.message})
}

// laterResponse is the response of an async hook that ended, read as Claude Code
// reads it: the first line of stdout that is a JSON object without an async key.
func laterResponse(stdout string) (string, bool) {
	for line := range strings.SplitSeq(stdout, "\n") {
		line = strings.TrimSpace(line)
		var m map[string]json.RawMessage
		if !strings.HasPrefix(line, "{") || json.Unmarshal([]byte(line), &m) != nil {
			continue
		}
		if _, ok := m["async"]; ok {
			continue
		}
		return line, true
	}
	return "", false
}
