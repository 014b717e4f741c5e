// Package resource is gantry's one lifecycle: every live thing gantry owns — a
// language server, an MCP connection, a debug session, a kernel, a vibe worker, a
// file cache and its change journal, the desktop connection, the shell's background
// tasks, staged edits — belongs to a Pool, under a Key saying what it is, what it
// serves and its Scope: per process (shared by every session of the process), per
// session, or per conversation (a subagent's run, a vibe worker).
//
// The pools form a tree: the process pool (NewPool), a child pool per session
// (Child(Session)) and, under a session, one per subagent or worker conversation
// (Child(Conversation)). A component holds the innermost pool it serves and asks it
// for what it needs at call time (Get): the key's scope says which pool of the tree
// owns the resource (a language server asked for from a subagent's pool lives in the
// process pool and is shared; its kernel lives in the subagent's). The first Get
// starts it, later Gets share it. What a tool decides at call time ("is a server
// usable here?") stays at call time: a failed start is not kept, so the next call
// tries again and can say why it failed.
//
// A pool is closed by its owner when the owner ends (the process, the session's App,
// the subagent's run, the worker), a child before its parent: its resources newest
// first, so that what came later (the vibe workers) stops before what it may use,
// then the children their owners left open; every error names its resource.
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

// Scope is how long a resource lives and who shares it.
type Scope uint8

const (
	// Process: shared by every session of the process (language servers, MCP
	// connections, file caches), closed when the process ends.
	Process Scope = iota
	// Session: one per session (the shell's background tasks, staged edits, the
	// desktop connection, the vibe workers), closed when the session ends.
	Session
	// Conversation: one per conversation (a debug session, eval kernels): the
	// session's main conversation, a subagent's run, a vibe worker; closed at its end.
	Conversation
)

func (s Scope) String() string {
	switch s {
	case Process:
		return "process"
	case Session:
		return "session"
	}
	return "conversation"
}

// Key names a resource by its scope, what it is and what it serves:
// {Kind: "lsp:gopls", Of: "/src/proj"}, {Scope: Session, Kind: "shell"}.
type Key struct {
	// Scope says which pool of the tree owns the resource: the nearest one, from the
	// pool asked, whose scope is Scope or wider (a pool with no session above it owns
	// the session's resources itself).
	Scope Scope
	Kind  string
	Of    string
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

// Pool owns the resources of one scope: a process, a session or a conversation. The
// zero value is not usable: see NewPool and Child.
type Pool struct {
	report func(Key, error)
	scope  Scope
	parent *Pool

	mu       sync.Mutex
	entries  map[Key]*entry
	order    []*entry // started resources, oldest first
	children []*Pool  // child pools not closed yet, oldest first
	closed   bool
}

// NewPool returns an empty process pool. report, when not nil, hears of a resource of
// it or of its children that failed while running (Fail); Close returns the errors of
// closing.
func NewPool(report func(Key, error)) *Pool {
	return &Pool{report: report, scope: Process, entries: map[Key]*entry{}}
}

// Child returns a new pool of scope (Session or Conversation) under p, for an owner
// that closes it when it ends; p's Close closes it too if it is still open. A child of
// a closed pool is closed.
func (p *Pool) Child(scope Scope) *Pool {
	c := &Pool{report: p.report, scope: scope, parent: p, entries: map[Key]*entry{}}
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.closed {
		c.closed = true
		return c
	}
	p.children = append(p.children, c)
	return c
}

// Scope is the pool's scope.
func (p *Pool) Scope() Scope { return p.scope }

// owner is the pool of the tree that owns the resources of scope s, seen from p: the
// nearest pool, from p up, whose scope is s or wider.
func (p *Pool) owner(s Scope) *Pool {
	for p.scope > s && p.parent != nil {
		p = p.parent
	}
	return p
}

// ended says whether p or a pool between it and the owner of scope s is closed: an
// ended conversation or session starts nothing, not even in a wider pool.
func (p *Pool) ended(s Scope) bool {
	for ; ; p = p.parent {
		p.mu.Lock()
		closed := p.closed
		p.mu.Unlock()
		if closed {
			return true
		}
		if p.scope <= s || p.parent == nil {
			return false
		}
	}
}

// Get returns the resource of key from the pool that owns its scope (seen from p),
// starting it with start the first time. Concurrent
// Gets of one key start it once: the others wait for that start (or for their ctx). A
// start that fails is not kept, so the next Get tries again. start's ctx bounds the
// start only; the resource lives until Stop or Close, so it must not tie its
// processes to ctx.
func Get[R Resource](ctx context.Context, p *Pool, key Key, start func(ctx context.Context) (R, error)) (R, error) {
	var zero R
	if p.ended(key.Scope) {
		return zero, ErrClosed
	}
	p = p.owner(key.Scope)
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
	p = p.owner(key.Scope)
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

// Running lists the keys of the running resources a Get from p can reach — those of
// the process's pool first, then the session's, then p's own — oldest first in each.
func (p *Pool) Running() []Key {
	var out []Key
	if p.parent != nil {
		out = p.parent.Running()
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	for _, e := range p.order {
		out = append(out, e.key)
	}
	return out
}

// take removes the running entry of key, if any, from the pool that owns it.
func (p *Pool) take(key Key) *entry {
	p = p.owner(key.Scope)
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

// Close closes the pool's resources, newest first, then the child pools still open,
// newest first, and returns their errors joined, each naming its resource. A child is
// closed by its owner when the owner ends, which comes first: a subagent's run ends
// within its session's turn, and the vibe Board, a resource of the session, stops
// each worker and then closes the worker's pool. So the pool's own resources go
// first, newest first (the Board, added last, stops its workers before the tools
// they use close), and a child its owner left open goes last. Get fails afterwards;
// the pool leaves its parent. Close is safe to call twice.
func (p *Pool) Close(ctx context.Context) error {
	p.mu.Lock()
	p.closed = true
	order, children := p.order, p.children
	p.order, p.children = nil, nil
	p.entries = map[Key]*entry{}
	p.mu.Unlock()
	if p.parent != nil {
		p.parent.mu.Lock()
		p.parent.children = slices.DeleteFunc(p.parent.children, func(c *Pool) bool { return c == p })
		p.parent.mu.Unlock()
	}
	var errs []error
	for _, e := range slices.Backward(order) {
		if err := e.res.Close(ctx); err != nil {
			errs = append(errs, fmt.Errorf("%s: %w", e.key, err))
		}
	}
	for _, c := range slices.Backward(children) {
		errs = append(errs, c.Close(ctx))
	}
	return errors.Join(errs...)
}
