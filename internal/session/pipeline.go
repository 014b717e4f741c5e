package session

import (
	"errors"
	"sync"

	"github.com/gantry-dev/gantry/internal/llm"
)

// Pipeline writes a session's records one at a time on a goroutine of its own, so
// that the agent goes on while its last record is being written. It never holds more
// than that one record: handing over the next one waits until the previous one is on
// disk. A kill of the process therefore loses at most the record being written, as
// with direct writes, while the write overlaps the agent's next step (a tool call, a
// model request) instead of delaying it.
//
// A write error is returned by the next call, or by Flush or Close.
type Pipeline struct {
	s    *Session
	jobs chan func() error

	mu     sync.Mutex
	err    error
	closed bool
	done   chan struct{}
	// pending counts the records handed over and not yet written; idle is
	// signalled when it falls to zero. (Not a WaitGroup: Flush is called while other
	// goroutines — a background subagent's usage — hand records over, and a
	// WaitGroup's Add may not race with its Wait.)
	pending int
	idle    *sync.Cond
}

// NewPipeline starts the writer of s. Close stops it.
func NewPipeline(s *Session) *Pipeline {
	p := &Pipeline{s: s, jobs: make(chan func() error), done: make(chan struct{})}
	p.idle = sync.NewCond(&p.mu)
	go p.run()
	return p
}

func (p *Pipeline) run() {
	defer close(p.done)
	for job := range p.jobs {
		err := job()
		p.mu.Lock()
		if err != nil {
			p.err = errors.Join(p.err, err)
		}
		p.pending--
		if p.pending == 0 {
			p.idle.Broadcast()
		}
		p.mu.Unlock()
	}
}

// submit hands job to the writer once it has finished the previous one, and returns
// the errors of earlier writes not yet reported.
func (p *Pipeline) submit(job func() error) error {
	p.mu.Lock()
	if p.closed {
		p.mu.Unlock()
		return errors.New("session: write after the pipeline was closed")
	}
	p.pending++
	p.mu.Unlock()
	p.jobs <- job // unbuffered: taken only when the writer is free
	return p.takeErr()
}

func (p *Pipeline) takeErr() error {
	p.mu.Lock()
	defer p.mu.Unlock()
	err := p.err
	p.err = nil
	return err
}

// Flush waits until every record handed over is on disk (those handed over by
// other goroutines meanwhile included).
func (p *Pipeline) Flush() error {
	p.mu.Lock()
	for p.pending > 0 {
		p.idle.Wait()
	}
	p.mu.Unlock()
	return p.takeErr()
}

// Close flushes and stops the writer. It is safe to call twice.
func (p *Pipeline) Close() error {
	p.mu.Lock()
	if p.closed {
		p.mu.Unlock()
		return p.takeErr()
	}
	p.closed = true
	p.mu.Unlock()
	close(p.jobs)
	<-p.done
	return p.takeErr()
}

// AppendMessage stores m (see Session.AppendMessage) behind the records before it.
func (p *Pipeline) AppendMessage(m llm.Message) error {
	return p.submit(func() error { return p.s.AppendMessage(m) })
}

// AppendEvent stores an event (see Session.AppendEvent). The payload is encoded on
// the writer, so the caller must not change it afterwards.
func (p *Pipeline) AppendEvent(kind string, payload any) error {
	return p.submit(func() error { return p.s.AppendEvent(kind, payload) })
}

// AppendResponse stores a response with its usage (see Session.AppendResponse).
func (p *Pipeline) AppendResponse(m llm.Message, u llm.Usage, cost float64) error {
	return p.submit(func() error { return p.s.AppendResponse(m, u, cost) })
}

// MarkCompaction records a compaction after the records before it (see
// Session.MarkCompaction).
func (p *Pipeline) MarkCompaction(history []llm.Message) error {
	return p.submit(func() error { return p.s.MarkCompaction(history) })
}

// AddUsage adds to the session's usage (see Session.AddUsage).
func (p *Pipeline) AddUsage(u llm.Usage, cost float64) error {
	return p.submit(func() error { return p.s.AddUsage(u, cost) })
}

// EndTurn counts a finished turn (see Session.EndTurn) and waits until everything
// handed over is on disk: a turn's end is a point where the session is whole. It
// returns every error not reported yet, its own included, the oldest first.
func (p *Pipeline) EndTurn() error {
	err := p.submit(p.s.EndTurn)
	return errors.Join(err, p.Flush())
}
