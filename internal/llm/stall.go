package llm

import (
	"context"
	"errors"
	"fmt"
	"io"
	"mime"
	"net/http"
	"sync"
	"time"
)

// Default stream bounds (config model.firstByteTimeout, model.streamIdleTimeout,
// model.pingTimeout, model.responseTimeout).
const (
	DefaultFirstByteTimeout  = 120 * time.Second
	DefaultStreamIdleTimeout = 90 * time.Second
	DefaultPingTimeout       = 120 * time.Second
	DefaultResponseTimeout   = 60 * time.Minute // a long reasoning answer (128k tokens) takes tens of minutes
)

// StallKind names the bound a stalled request hit.
type StallKind int

// The bounds of one model response.
const (
	// StallFirstByte: no response headers within the first-byte bound.
	StallFirstByte StallKind = iota
	// StallIdle: no byte of the stream within the idle bound.
	StallIdle
	// StallPings: only keep-alives (pings, SSE comments), no content, within the
	// ping bound.
	StallPings
	// StallTotal: the whole response took longer than the total bound.
	StallTotal
)

// StallError is a request whose server went quiet or never finished: it sent no
// response within FirstByte of the request, nothing more within Idle while the
// answer streamed, only keep-alives for Pings, or did not end within Total.
type StallError struct {
	Kind StallKind
	// Headers says the response had begun (its headers came) before the stall.
	Headers bool
	After   time.Duration
}

func (e *StallError) Error() string {
	switch e.Kind {
	case StallIdle:
		return fmt.Sprintf("the model's stream went quiet: nothing for %s (model.streamIdleTimeout)", e.After)
	case StallPings:
		return fmt.Sprintf("the model's stream sent only keep-alive pings, no content, for %s (model.pingTimeout)", e.After)
	case StallTotal:
		return fmt.Sprintf("the model's response went on for %s without ending, the bound of one response (model.responseTimeout)", e.After)
	}
	return fmt.Sprintf("the model did not answer: no response within %s (model.firstByteTimeout)", e.After)
}

// Stalled returns err as the error a provider should return when it is (or wraps)
// one of the stream guard's: a StallError, retryable, prefixed with name; a
// MalformedEventError, not retryable (a server that sends what cannot be read
// sends it again). Else nil: a provider's error classification asks it first.
func Stalled(name string, err error) error {
	var se *StallError
	if errors.As(err, &se) {
		return &RetryableError{Err: fmt.Errorf("%s: %w", name, se)}
	}
	var me *MalformedEventError
	if errors.As(err, &me) {
		return &APIError{Msg: name + ": " + me.Error(), Cause: me}
	}
	return nil
}

// Bounds are the time bounds of one model response; zero or negative fields take
// the defaults.
type Bounds struct {
	// FirstByte bounds the wait for the response headers.
	FirstByte time.Duration
	// Idle bounds the silence between two reads of the stream.
	Idle time.Duration
	// Pings bounds how long a stream may send keep-alives only (Anthropic's ping
	// events, SSE comments) and no content.
	Pings time.Duration
	// Total bounds the whole response, from the request to the stream's end.
	Total time.Duration
}

func (b Bounds) withDefaults() Bounds {
	if b.FirstByte <= 0 {
		b.FirstByte = DefaultFirstByteTimeout
	}
	if b.Idle <= 0 {
		b.Idle = DefaultStreamIdleTimeout
	}
	if b.Pings <= 0 {
		b.Pings = DefaultPingTimeout
	}
	if b.Total <= 0 {
		b.Total = DefaultResponseTimeout
	}
	return b
}

// StallGuard is Guard with the first-byte and idle bounds given and the others at
// their defaults.
func StallGuard(base http.RoundTripper, firstByte, idle time.Duration) http.RoundTripper {
	return Guard(base, Bounds{FirstByte: firstByte, Idle: idle})
}

// Guard wraps an HTTP transport (nil: http.DefaultTransport) so that a request
// whose server goes quiet or never finishes fails with a *StallError instead of
// waiting for ever: no response headers within FirstByte of sending, no byte of
// the body within Idle of the headers or of the last byte read, no content (only
// keep-alives) within Pings, or a response not over within Total of the request.
// The body of an event stream is read as it passes: an event whose data is not a
// JSON object fails the read with a *MalformedEventError. The timers are the
// transport's, not the caller's: a request cancelled by its caller fails as the
// caller's context says.
func Guard(base http.RoundTripper, b Bounds) http.RoundTripper {
	if base == nil {
		base = http.DefaultTransport
	}
	return &stallGuard{base: base, b: b.withDefaults()}
}

type stallGuard struct {
	base http.RoundTripper
	b    Bounds
}

func (g *stallGuard) RoundTrip(req *http.Request) (*http.Response, error) {
	ctx, cancel := context.WithCancelCause(req.Context())
	w := &watch{cancel: cancel, quietErr: &StallError{Kind: StallFirstByte, After: g.b.FirstByte}}
	w.mu.Lock()
	w.quiet = time.AfterFunc(g.b.FirstByte, w.fireQuiet)
	w.total = time.AfterFunc(g.b.Total, func() { w.fire(&StallError{Kind: StallTotal, After: g.b.Total}) })
	w.mu.Unlock()
	resp, err := g.base.RoundTrip(req.WithContext(ctx))
	if err != nil {
		w.stop()
		if se := w.fired(); se != nil {
			err = se
		}
		cancel(nil)
		return nil, err
	}
	sse := isEventStream(resp.Header.Get("Content-Type"))
	if !w.arm(g.b, sse) {
		// Fired as the headers came: the body is cut already.
		resp.Body.Close()
		cancel(nil)
		return nil, w.fired()
	}
	body := &watchedBody{rc: resp.Body, w: w, b: g.b}
	if sse {
		body.sse = &sseScan{}
	}
	resp.Body = body
	return resp, nil
}

func isEventStream(contentType string) bool {
	mt, _, err := mime.ParseMediaType(contentType)
	return err == nil && mt == "text/event-stream"
}

// watch is the timers of one request: when one fires it cancels the request with
// the StallError it stands for.
type watch struct {
	cancel context.CancelCauseFunc

	mu sync.Mutex
	// quiet is the first-byte timer, then the idle one; quietErr what it reports.
	quiet    *time.Timer
	quietErr *StallError
	// pings fires when an event stream has sent no content for a while; total when
	// the whole response has taken too long.
	pings, total *time.Timer
	err          *StallError // set once a timer has fired
}

func (w *watch) fireQuiet() {
	w.mu.Lock()
	se := w.quietErr
	w.mu.Unlock()
	w.fire(se)
}

// fire cancels the request with se, unless a timer fired before.
func (w *watch) fire(se *StallError) {
	w.mu.Lock()
	if w.err != nil {
		w.mu.Unlock()
		return
	}
	w.err = se
	w.mu.Unlock()
	w.cancel(se)
}

// fired returns the StallError when a timer fired, else nil.
func (w *watch) fired() error {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.err != nil {
		return w.err
	}
	return nil
}

// arm turns the first-byte timer into the idle one and, for an event stream,
// starts the ping timer; false when a timer had fired.
func (w *watch) arm(b Bounds, sse bool) bool {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.err != nil {
		return false
	}
	w.quietErr = &StallError{Kind: StallIdle, Headers: true, After: b.Idle}
	w.quiet.Reset(b.Idle)
	if sse {
		w.pings = time.AfterFunc(b.Pings, func() { w.fire(&StallError{Kind: StallPings, Headers: true, After: b.Pings}) })
	}
	return true
}

// stop stops every timer: the response is over.
func (w *watch) stop() {
	w.mu.Lock()
	defer w.mu.Unlock()
	for _, t := range []*time.Timer{w.quiet, w.pings, w.total} {
		if t != nil {
			t.Stop()
		}
	}
}

// watchedBody is a response body whose reads keep the idle timer from firing, and
// whose events with content keep the ping timer from firing.
type watchedBody struct {
	rc  io.ReadCloser
	w   *watch
	b   Bounds
	sse *sseScan // nil when the body is not an event stream
	bad error    // the malformed event, returned by every read after it
}

func (b *watchedBody) Read(p []byte) (int, error) {
	if b.bad != nil {
		return 0, b.bad
	}
	n, err := b.rc.Read(p)
	if se := b.w.fired(); se != nil {
		return n, se
	}
	content := false
	if b.sse != nil && n > 0 {
		var keep int
		var bad error
		content, keep, bad = b.sse.feed(p[:n])
		if bad != nil {
			// The bytes of the bad event stay unread, so that the reader reports
			// this error and not its own reading of the event.
			b.bad = bad
			b.w.stop()
			return keep, bad
		}
	}
	b.w.mu.Lock()
	switch {
	case b.w.err != nil:
	case err != nil:
		b.w.mu.Unlock()
		b.w.stop() // the body is over
		return n, err
	case n > 0:
		b.w.quiet.Reset(b.b.Idle)
		if content && b.w.pings != nil {
			b.w.pings.Reset(b.b.Pings)
		}
	}
	b.w.mu.Unlock()
	return n, err
}

func (b *watchedBody) Close() error {
	b.w.stop()
	err := b.rc.Close()
	b.w.cancel(nil)
	return err
}
