// Package vibe is vibe mode's workers: background agents a conversation spawns by
// tier, steers with more brief, waits for and stops — vibe_spawn, vibe_send,
// vibe_wait, vibe_kill and vibe_list. Each worker is a conversation of its own (made by
// the session's Factory: its own context and stored session, the session's gate on its
// tools); the Board holds them, outside any turn, until they end or the session closes.
package vibe

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/gantry-dev/gantry/internal/tool"
)

// The tiers.
const (
	Fast = "fast" // mechanical work with a clear spec
	Good = "good" // design, judgement, review of a fast worker's output
)

// Names are the vibe tools' names (a worker's registry leaves them out: workers do not
// spawn workers).
var Names = []string{"vibe_spawn", "vibe_send", "vibe_wait", "vibe_kill", "vibe_list"}

// Worker is one worker's conversation: Run sends it a prompt and drives it to its final
// message; a later Run goes on in the same conversation.
type Worker interface {
	Run(ctx context.Context, prompt string) (final string, err error)
	// Close releases what the conversation holds (its stored session).
	Close() error
}

// Spec is what a Factory is asked for.
type Spec struct {
	ID, Label, Tier string
}

// Made is what a Factory made: the worker, the model it runs on, and a notice for the
// person when the tier names no model (it runs on the session's), said once a session
// for each tier.
type Made struct {
	Worker Worker
	Model  string
	Notice string
}

// Factory makes a worker's conversation.
type Factory func(Spec) (Made, error)

// Options configure a Board.
type Options struct {
	Make Factory
	// Notify tells the person a line of what the workers did (a worker ended); may be nil.
	Notify func(text string)
	// Warn tells the person a Made's notice, the first time a tier's worker gives one;
	// may be nil.
	Warn func(text string)
	// MaxOutput bounds what vibe_wait and vibe_list return.
	MaxOutput int
}

// Board holds a session's workers: a tool.Toolset, closed with the session.
type Board struct {
	opts   Options
	ctx    context.Context // the workers' life: until Close
	cancel context.CancelFunc

	mu      sync.Mutex
	workers map[string]*worker
	order   []string
	n       int
	warned  map[string]bool // the tiers whose notice was said
	closed  bool
	wg      sync.WaitGroup
}

// State is one worker as vibe_list and the faces show it.
type State struct {
	ID, Label, Tier, Model string
	Status                 string // running, done, failed, killed
	Elapsed                time.Duration
	Last                   string // its last final message, or why it failed
}

type worker struct {
	State
	w       Worker
	started time.Time
	ended   time.Time
	pending []string      // messages sent while it runs, given to it when its run ends
	done    chan struct{} // closed when the worker stops running
	stop    context.CancelFunc
	killed  bool
}

// New makes a Board.
func New(o Options) *Board {
	ctx, cancel := context.WithCancel(context.Background())
	return &Board{opts: o, ctx: ctx, cancel: cancel, workers: map[string]*worker{}, warned: map[string]bool{}}
}

// Tools are the five vibe tools.
func (b *Board) Tools() []tool.Tool {
	return []tool.Tool{spawnTool(b), sendTool(b), waitTool(b), killTool(b), listTool(b)}
}

// Close stops every worker and waits until they have stopped, then releases them.
func (b *Board) Close(ctx context.Context) error {
	b.mu.Lock()
	b.closed = true
	b.mu.Unlock()
	b.cancel()
	done := make(chan struct{})
	go func() { b.wg.Wait(); close(done) }()
	select {
	case <-done:
	case <-ctx.Done():
		return errors.New("vibe workers did not stop in time")
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	var errs []error
	for _, id := range b.order {
		if err := b.workers[id].w.Close(); err != nil {
			errs = append(errs, fmt.Errorf("worker %s: %w", id, err))
		}
	}
	return errors.Join(errs...)
}

// Running counts the workers running now.
func (b *Board) Running() int {
	n := 0
	for _, s := range b.List() {
		if s.Status == "running" {
			n++
		}
	}
	return n
}

// List is every worker, in the order they were spawned.
func (b *Board) List() []State {
	b.mu.Lock()
	defer b.mu.Unlock()
	out := make([]State, 0, len(b.order))
	for _, id := range b.order {
		wk := b.workers[id]
		s := wk.State
		end := wk.ended
		if s.Status == "running" || end.IsZero() {
			end = time.Now()
		}
		s.Elapsed = end.Sub(wk.started)
		out = append(out, s)
	}
	return out
}

// StopAll stops every running worker (the person chose so); it returns how many.
func (b *Board) StopAll() int {
	n := 0
	for _, s := range b.List() {
		if s.Status == "running" {
			if b.kill(s.ID) == nil {
				n++
			}
		}
	}
	return n
}

// spawn starts a worker on brief and returns at once.
func (b *Board) spawn(brief, label, tier string) (State, error) {
	b.mu.Lock()
	if b.closed {
		b.mu.Unlock()
		return State{}, errors.New("the session is closing")
	}
	b.n++
	id := fmt.Sprintf("w%d", b.n)
	b.mu.Unlock()
	made, err := b.opts.Make(Spec{ID: id, Label: label, Tier: tier})
	if err != nil {
		return State{}, err
	}
	wk := &worker{State: State{ID: id, Label: label, Tier: tier, Model: made.Model, Status: "running"}, w: made.Worker,
		started: time.Now(), done: make(chan struct{})}
	b.mu.Lock()
	if b.closed {
		b.mu.Unlock()
		_ = made.Worker.Close()
		return State{}, errors.New("the session is closing")
	}
	b.workers[id] = wk
	b.order = append(b.order, id)
	b.start(wk, brief)
	warn := made.Notice != "" && !b.warned[tier]
	if warn {
		b.warned[tier] = true
	}
	s := wk.State
	b.mu.Unlock()
	if warn && b.opts.Warn != nil {
		b.opts.Warn(made.Notice)
	}
	return s, nil
}

// start runs wk on prompt in the background; b.mu is held.
func (b *Board) start(wk *worker, prompt string) {
	ctx, cancel := context.WithCancel(b.ctx)
	wk.stop, wk.killed, wk.Status = cancel, false, "running"
	b.wg.Add(1)
	go func() {
		defer b.wg.Done()
		defer cancel()
		for {
			final, err := wk.w.Run(ctx, prompt)
			b.mu.Lock()
			switch {
			case wk.killed || b.closed:
				wk.Status, wk.Last = "killed", firstNonEmpty(final, "(stopped before it answered)")
			case err != nil:
				wk.Status, wk.Last = "failed", err.Error()
				if final != "" {
					wk.Last = final + "\n(" + err.Error() + ")"
				}
			default:
				wk.Status, wk.Last = "done", final
			}
			if wk.Status != "killed" && len(wk.pending) > 0 {
				prompt = strings.Join(wk.pending, "\n\n")
				wk.pending, wk.Status = nil, "running"
				b.mu.Unlock()
				continue
			}
			wk.ended = time.Now()
			close(wk.done)
			s := wk.State
			s.Elapsed = wk.ended.Sub(wk.started)
			b.mu.Unlock()
			if b.opts.Notify != nil && !b.isClosed() {
				b.opts.Notify(fmt.Sprintf("worker %s [%s] %s after %s: %s", s.ID, s.Label, s.Status, round(s.Elapsed), oneLine(s.Last, 160)))
			}
			return
		}
	}()
}

func (b *Board) isClosed() bool {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.closed
}

// send gives a worker more brief: at once when it has ended (it runs again, in the same
// conversation), else when its current run ends.
func (b *Board) send(id, message string) (restarted bool, err error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	wk, ok := b.workers[id]
	if !ok {
		return false, b.unknown(id)
	}
	if b.closed {
		return false, errors.New("the session is closing")
	}
	if wk.Status == "running" {
		wk.pending = append(wk.pending, message)
		return false, nil
	}
	wk.done, wk.ended = make(chan struct{}), time.Time{}
	wk.started = time.Now()
	b.start(wk, message)
	return true, nil
}

// wait blocks until the worker stops running, ctx ends, or timeout passes.
func (b *Board) wait(ctx context.Context, id string, timeout time.Duration) (State, bool, error) {
	b.mu.Lock()
	wk, ok := b.workers[id]
	if !ok {
		b.mu.Unlock()
		return State{}, false, b.unknown(id)
	}
	done := wk.done
	b.mu.Unlock()
	t := time.NewTimer(timeout)
	defer t.Stop()
	ended := true
	select {
	case <-done:
	case <-t.C:
		ended = false
	case <-ctx.Done():
		return State{}, false, ctx.Err()
	}
	for _, s := range b.List() {
		if s.ID == id {
			return s, ended, nil
		}
	}
	return State{}, false, b.unknown(id)
}

// kill stops a worker and waits (briefly) until it has.
func (b *Board) kill(id string) error {
	b.mu.Lock()
	wk, ok := b.workers[id]
	if !ok {
		b.mu.Unlock()
		return b.unknown(id)
	}
	if wk.Status != "running" {
		b.mu.Unlock()
		return fmt.Errorf("worker %s is not running (it is %s)", id, wk.Status)
	}
	wk.killed, wk.pending = true, nil
	wk.stop()
	done := wk.done
	b.mu.Unlock()
	select {
	case <-done:
		return nil
	case <-time.After(10 * time.Second):
		return fmt.Errorf("worker %s was told to stop and has not yet", id)
	}
}

// unknown says a worker id names none; b.mu may be held or not (it reads order only
// under the lock the caller holds, or none).
func (b *Board) unknown(id string) error {
	ids := slices.Clone(b.order)
	if len(ids) == 0 {
		return fmt.Errorf("there is no worker %q: none was spawned yet (vibe_spawn starts one)", id)
	}
	return fmt.Errorf("there is no worker %q; the workers are %s", id, strings.Join(ids, ", "))
}

func firstNonEmpty(a, b string) string {
	if a != "" {
		return a
	}
	return b
}

func oneLine(s string, n int) string {
	s = strings.TrimSpace(s)
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		s = s[:i] + " …"
	}
	if r := []rune(s); len(r) > n {
		s = string(r[:n-1]) + "…"
	}
	return s
}

func round(d time.Duration) time.Duration {
	if d < time.Second {
		return d.Round(time.Millisecond)
	}
	return d.Round(time.Second)
}
