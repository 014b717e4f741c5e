// Package resource is gantry's lifecycle seam: the live things tools own — an MCP
// server's connection, a language server, a debug adapter, a kernel, a worker — each
// started lazily on first use, owned once per process, keyed by what it serves, shared
// by every session of the process (the sessions of an ACP connection, subagents, the
// sessions a terminal UI switches between), and closed in the reverse order of their
// start when the process ends, their errors reported.
//
// A tool asks the pool for what it needs at call time (Get); the first call starts it,
// later calls of any session share it. What a tool decides at call time ("is a server
// usable here?") stays at call time: a failed start is not kept, so the next call tries
// again and can say why it failed.
package resource

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"sync"
)

// Resource is something live a pool owns.
type Resource interface {
	// Close ends the resource (stops its processes, closes its connections) within
	// ctx, and says what failed.
	Close(ctx context.Context) error
}

// Key names a resource by what it is and what it serves: {"lsp:gopls", "/src/proj"},
// {"mcp", "<server definition>"}.
type Key struct {
	Kind string
	Of   string
	// Policy is the ID of the session policy its processes run under
	// (contain.Policy.ID): a server started under one session's rules is not handed
	// to a session of other rules.
	Policy string
}

func (k Key) String() string {
	if k.Of == "" {
		return k.Kind
	}
	return k.Kind + " (" + k.Of + ")"
}

// ErrClosed is returned by Get once the pool is closed.
var ErrClosed = errors.New("the process is shutting down")

// entry is one resource, started or starting.
type entry struct {
	key   Key
	ready chan struct{} // closed when the start ended
	res   Resource      // set when the start succeeded
	err   error         // set when it failed
}

// Pool owns the resources of a process. The zero value is not usable: see NewPool.
type Pool struct {
	report func(Key, error)

	mu      sync.Mutex
	entries map[Key]*entry
	order   []*entry // started resources, oldest first
	closed  bool
}

// NewPool returns an empty pool. report, when not nil, hears of a resource that failed
// while running (Fail); Close returns the errors of closing.
func NewPool(report func(Key, error)) *Pool {
	return &Pool{report: report, entries: map[Key]*entry{}}
}

// Get returns the resource of key, starting it with start the first time. Concurrent
// Gets of one key start it once: the others wait for that start (or for their ctx). A
// start that fails is not kept, so the next Get tries again. start's ctx bounds the
// start only; the resource lives until Stop or Close, so it must not tie its
// processes to ctx.
func Get[R Resource](ctx context.Context, p *Pool, key Key, start func(ctx context.Context) (R, error)) (R, error) {
	var zero R
	for {
		p.mu.Lock()
		if p.closed {
			p.mu.Unlock()
			return zero, ErrClosed
		}
		e, ok := p.entries[key]
		if !ok {
			e = &entry{key: key, ready: make(chan struct{})}
			p.entries[key] = e
			p.mu.Unlock()
			return startEntry(ctx, p, e, start)
		}
		p.mu.Unlock()
		select {
		case <-e.ready:
		case <-ctx.Done():
			return zero, ctx.Err()
		}
		if e.err != nil {
			continue // that start failed and was dropped: try ours
		}
		r, ok := e.res.(R)
		if !ok {
			return zero, fmt.Errorf("resource %s is a %T, not the %T asked for", key, e.res, zero)
		}
		return r, nil
	}
}

func startEntry[R Resource](ctx context.Context, p *Pool, e *entry, start func(ctx context.Context) (R, error)) (r R, err error) {
	defer func() {
		if v := recover(); v != nil {
			err = fmt.Errorf("starting %s failed inside gantry: %v", e.key, v)
		}
		p.mu.Lock()
		if err != nil {
			e.err = err
			delete(p.entries, e.key)
		} else if p.closed {
			// Closed while starting: nobody will close it but us.
			delete(p.entries, e.key)
			e.err = ErrClosed
			p.mu.Unlock()
			close(e.ready)
			_ = r.Close(context.WithoutCancel(ctx))
			var zero R
			r, err = zero, ErrClosed
			return
		} else {
			e.res = r
			p.order = append(p.order, e)
		}
		p.mu.Unlock()
		close(e.ready)
	}()
	return start(ctx)
}

// Peek returns the running resource of key without starting it.
func Peek[R Resource](p *Pool, key Key) (R, bool) {
	p.mu.Lock()
	defer p.mu.Unlock()
	var zero R
	e, ok := p.entries[key]
	if !ok || e.res == nil {
		return zero, false
	}
	r, ok := e.res.(R)
	return r, ok
}

// Running lists the keys of the running resources, oldest first.
func (p *Pool) Running() []Key {
	p.mu.Lock()
	defer p.mu.Unlock()
	out := make([]Key, len(p.order))
	for i, e := range p.order {
		out[i] = e.key
	}
	return out
}

// take removes the running entry of key, if any.
func (p *Pool) take(key Key) *entry {
	p.mu.Lock()
	defer p.mu.Unlock()
	e, ok := p.entries[key]
	if !ok || e.res == nil {
		return nil
	}
	delete(p.entries, key)
	p.order = slices.DeleteFunc(p.order, func(x *entry) bool { return x == e })
	return e
}

// Stop closes the resource of key now (a reload); the next Get starts it again.
// Stopping a key that does not run is no error.
func (p *Pool) Stop(ctx context.Context, key Key) error {
	e := p.take(key)
	if e == nil {
		return nil
	}
	if err := e.res.Close(ctx); err != nil {
		return fmt.Errorf("%s: %w", key, err)
	}
	return nil
}

// Fail tells the pool that the resource of key died while running: it is dropped
// (the next Get starts it again), closed to free what is left of it, and err is
// reported.
func (p *Pool) Fail(key Key, err error) {
	if e := p.take(key); e != nil {
		_ = e.res.Close(context.Background())
	}
	if p.report != nil && err != nil {
		p.report(key, err)
	}
}

// Close closes every resource, newest first, and returns their errors joined, each
// naming its resource. Get fails afterwards. Close is safe to call twice.
func (p *Pool) Close(ctx context.Context) error {
	p.mu.Lock()
	p.closed = true
	order := p.order
	p.order = nil
	p.entries = map[Key]*entry{}
	p.mu.Unlock()
	var errs []error
	for _, e := range slices.Backward(order) {
		if err := e.res.Close(ctx); err != nil {
			errs = append(errs, fmt.Errorf("%s: %w", e.key, err))
		}
	}
	return errors.Join(errs...)
}
