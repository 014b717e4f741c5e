package mcpclient

import (
	"context"
	"slices"
	"sync"
	"time"

	"github.com/gantry-dev/gantry/internal/tool"
)

// Set is the servers Connect reached and the tools they offer.
type Set struct {
	conns       []*conn
	tools       []tool.Tool
	failures    []string
	callTimeout time.Duration

	// closing ends when Close begins; calls in flight are cancelled with it.
	closing context.Context
	cancel  context.CancelFunc
	once    sync.Once
}

// Tools returns one gantry tool per tool of the servers reached, in the order of the
// servers given to Connect and then of their listings.
func (s *Set) Tools() []tool.Tool { return slices.Clone(s.tools) }

// Failures returns one sentence per server that could not be used, naming it and why.
func (s *Set) Failures() []string { return slices.Clone(s.failures) }

// Close cancels the calls in flight, closes every session and stops every stdio
// server with its whole process group, the servers in parallel. It returns once they
// are gone. Safe to call more than once; the tools fail with a sentence afterwards.
// It implements tool.Toolset and resource.Resource; stopping a server cannot fail in
// a way gantry could act on, so the error is always nil.
func (s *Set) Close(context.Context) error {
	s.once.Do(func() {
		s.cancel()
		var wg sync.WaitGroup
		for _, c := range s.conns {
			wg.Go(c.close)
		}
		wg.Wait()
	})
	return nil
}
