package hook

import (
	"bytes"
	"context"
	"encoding/json"
	"strings"
	"time"
)

// DefaultAsyncTimeout is how long a hook that declares itself async (see firstLine)
// may run on in the background when its declaration gives no asyncTimeout.
const DefaultAsyncTimeout = 15 * time.Second

// maxFirstLine bounds the first line of stdout read for a declaration: a longer one
// is no declaration.
const maxFirstLine = 4 << 10

// firstLine is the writer a hook's stdout goes through while it runs: it passes
// everything on to w and watches the first line for Claude Code's declaration
// {"async": true, "asyncTimeout": ms}, by which a command hook that was not
// configured async asks not to be waited for. On one it sends the time the hook may
// run on in the background to declared, once. It is not safe for concurrent use.
type firstLine struct {
	w        *capture
	line     []byte
	done     bool
	declared chan time.Duration // buffered: one declaration
}

func newFirstLine(w *capture) *firstLine {
	return &firstLine{w: w, declared: make(chan time.Duration, 1)}
}

func (f *firstLine) Write(p []byte) (int, error) {
	if !f.done {
		if i := bytes.IndexByte(p, '\n'); i >= 0 {
			f.line = append(f.line, p[:i]...)
			f.done = true
			if d, ok := asyncDeclaration(f.line); ok {
				f.declared <- d
			}
		} else if f.line = append(f.line, p...); len(f.line) > maxFirstLine {
			f.done = true
		}
	}
	return f.w.Write(p)
}

// asyncDeclaration reads line as a declaration: a JSON object whose async is true,
// with the time it may run on (asyncTimeout in milliseconds, or DefaultAsyncTimeout).
func asyncDeclaration(line []byte) (time.Duration, bool) {
	line = bytes.TrimSpace(line)
	if !bytes.HasPrefix(line, []byte("{")) {
		return 0, false
	}
	var d struct {
		Async        bool    `json:"async"`
		AsyncTimeout float64 `json:"asyncTimeout"`
	}
	if json.Unmarshal(line, &d) != nil || !d.Async {
		return 0, false
	}
	if d.AsyncTimeout <= 0 {
		return DefaultAsyncTimeout, true
	}
	return time.Duration(d.AsyncTimeout * float64(time.Millisecond)), true
}

// afterFirstLine is stdout without its first line: what a hook that declared itself
// async wrote after the declaration.
func afterFirstLine(stdout string) string {
	_, rest, _ := strings.Cut(stdout, "\n")
	return rest
}

// detacher says where a hook that declares itself async goes: it runs on under ctx
// (the runner's background, which Close ends) in a goroutine spawn starts, and then
// is given its end.
type detacher struct {
	ctx   context.Context
	spawn func(func())
	then  func(execution)
}

// detacher is where the hooks of r that declare themselves async go; then gets their
// end.
func (r *Runner) detacher(then func(execution)) *detacher {
	return &detacher{ctx: r.bg.ctx, spawn: r.bg.run, then: then}
}
