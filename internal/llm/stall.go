package llm

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"sync"
	"time"
)

// Default stream timeouts (config model.firstByteTimeout, model.streamIdleTimeout).
const (
	DefaultFirstByteTimeout  = 120 * time.Second
	DefaultStreamIdleTimeout = 90 * time.Second
)

// StallError is a request whose server went quiet: it sent no response within
// FirstByte of the request, or nothing more within Idle while the answer streamed.
type StallError struct {
	// Headers says the response had begun (its headers came) before the silence.
	Headers bool
	After   time.Duration
}

func (e *StallError) Error() string {
	if e.Headers {
		return fmt.Sprintf("the model's stream went quiet: nothing for %s (model.streamIdleTimeout)", e.After)
	}
	return fmt.Sprintf("the model did not answer: no response within %s (model.firstByteTimeout)", e.After)
}

// Stalled returns err as a RetryableError prefixed with name when it is (or wraps) a
// StallError, else nil: a provider's error classification asks it first.
func Stalled(name string, err error) error {
	var se *StallError
	if errors.As(err, &se) {
		return &RetryableError{Err: fmt.Errorf("%s: %w", name, se)}
	}
	return nil
}

// StallGuard wraps an HTTP transport (nil: http.DefaultTransport) so that a request
// whose server goes quiet fails with a *StallError instead of waiting for ever: no
// response headers within firstByte of sending, or no byte of the body within idle
// of the headers or of the last byte read. Zero or negative durations take the
// defaults. The timers are the transport's, not the caller's: a request cancelled
// by its caller fails as the caller's context says.
func StallGuard(base http.RoundTripper, firstByte, idle time.Duration) http.RoundTripper {
	if base == nil {
		base = http.DefaultTransport
	}
	if firstByte <= 0 {
		firstByte = DefaultFirstByteTimeout
	}
	if idle <= 0 {
		idle = DefaultStreamIdleTimeout
	}
	return &stallGuard{base: base, firstByte: firstByte, idle: idle}
}

type stallGuard struct {
	base            http.RoundTripper
	firstByte, idle time.Duration
}

func (g *stallGuard) RoundTrip(req *http.Request) (*http.Response, error) {
	ctx, cancel := context.WithCancelCause(req.Context())
	w := &watch{cancel: cancel, err: &StallError{After: g.firstByte}}
	w.timer = time.AfterFunc(g.firstByte, w.fire)
	resp, err := g.base.RoundTrip(req.WithContext(ctx))
	if err != nil {
		w.timer.Stop()
		if se := w.fired(); se != nil {
			err = se
		}
		cancel(nil)
		return nil, err
	}
	if !w.arm(&StallError{Headers: true, After: g.idle}, g.idle) {
		// Fired as the headers came: the body is cut already.
		resp.Body.Close()
		cancel(nil)
		return nil, w.fired()
	}
	resp.Body = &watchedBody{rc: resp.Body, w: w, idle: g.idle}
	return resp, nil
}

// watch is the timer of one request: when it fires it cancels the request with
// the StallError it holds.
type watch struct {
	timer  *time.Timer
	cancel context.CancelCauseFunc

	mu       sync.Mutex
	err      *StallError
	hasFired bool
}

func (w *watch) fire() {
	w.mu.Lock()
	w.hasFired = true
	err := w.err
	w.mu.Unlock()
	w.cancel(err)
}

// fired returns the StallError when the timer fired, else nil.
func (w *watch) fired() error {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.hasFired {
		return w.err
	}
	return nil
}

// arm sets the timer to d with err as what it reports; false when it had fired.
func (w *watch) arm(err *StallError, d time.Duration) bool {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.hasFired {
		return false
	}
	w.err = err
	w.timer.Reset(d)
	return true
}

// watchedBody is a response body whose reads keep the idle timer from firing.
type watchedBody struct {
	rc   io.ReadCloser
	w    *watch
	idle time.Duration
}

func (b *watchedBody) Read(p []byte) (int, error) {
	n, err := b.rc.Read(p)
	if se := b.w.fired(); se != nil {
		return n, se
	}
	b.w.mu.Lock()
	switch {
	case b.w.hasFired:
	case err != nil:
		b.w.timer.Stop() // the body is over
	case n > 0:
		b.w.timer.Reset(b.idle)
	}
	b.w.mu.Unlock()
	return n, err
}

func (b *watchedBody) Close() error {
	b.w.timer.Stop()
	err := b.rc.Close()
	b.w.cancel(nil)
	return err
}
