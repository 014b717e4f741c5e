package fakellm

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"time"
)

// raw is event data written as it is, not JSON-encoded ("[DONE]").
type raw string

// stream writes the server-sent events of one response, one flush per event, and
// applies the turn's stream faults.
type stream struct {
	w    http.ResponseWriter
	rc   *http.ResponseController
	ctx  context.Context
	done <-chan struct{}
	// stalled is told when the stream stalls (StallAfter), after its events are flushed.
	stalled func()
	turn    Turn
	sent    int
	// errorEvent writes the endpoint's error event for StreamError.
	errorEvent func(s *stream, kind string)
	// ping writes one keep-alive (PingsAfter): an SSE comment unless the endpoint
	// sets its own.
	ping func(s *stream)
}

func newStream(w http.ResponseWriter, r *http.Request, done <-chan struct{}, stalled func(), t Turn) *stream {
	s := &stream{w: w, rc: http.NewResponseController(w), ctx: r.Context(), done: done, stalled: stalled, turn: t}
	if t.Silent == SilentBeforeHeaders {
		s.silence()
	}
	h := w.Header()
	h.Set("Content-Type", "text/event-stream; charset=utf-8")
	h.Set("Cache-Control", "no-cache")
	w.WriteHeader(http.StatusOK)
	_ = s.rc.Flush()
	if t.Silent == SilentAfterHeaders {
		s.silence()
	}
	return s
}

// silence tells the stall, waits until the client leaves or the server closes, and
// ends the handler without a word more.
func (s *stream) silence() {
	if s.stalled != nil {
		s.stalled()
	}
	s.wait(-1)
	panic(http.ErrAbortHandler)
}

// send writes one event, unless a fault of the turn comes first. It reports
// whether the response goes on; false means stop writing and return. A cut
// aborts the handler and does not return.
func (s *stream) send(name string, data any) bool {
	t := s.turn
	select {
	case <-s.ctx.Done():
		return false // the client went away
	case <-s.done:
		return false
	default:
	}
	if t.Delay > 0 && !s.wait(t.Delay) {
		return false
	}
	if t.StreamError != "" && s.sent == max(t.CutAfter, 1) {
		s.errorEvent(s, t.StreamError)
		return false
	}
	if t.Malformed != "" && s.sent == max(t.CutAfter, 1) {
		if name != "" {
			fmt.Fprintf(s.w, "event: %s\n", name)
		}
		fmt.Fprintf(s.w, "data: %s\n\n", t.Malformed)
		_ = s.rc.Flush()
		s.sent++
		return false
	}
	if t.PingsAfter > 0 && s.sent == t.PingsAfter {
		s.pingForever()
		return false
	}
	if t.StreamError == "" && t.CutAfter > 0 && s.sent == t.CutAfter {
		// Drops the connection without the end of the chunked body.
		panic(http.ErrAbortHandler)
	}
	if t.EndAfter > 0 && s.sent == t.EndAfter {
		return false
	}
	if t.StallAfter > 0 && s.sent == t.StallAfter {
		if s.stalled != nil {
			s.stalled()
		}
		s.wait(-1)
		return false
	}
	s.write(name, data)
	return true
}

// pingForever sends keep-alives until the client leaves or the server closes.
func (s *stream) pingForever() {
	every := s.turn.PingEvery
	if every <= 0 {
		every = 5 * time.Millisecond
	}
	for {
		if s.ping != nil {
			s.ping(s)
		} else {
			fmt.Fprint(s.w, ": keep-alive\n\n")
			_ = s.rc.Flush()
		}
		if !s.wait(every) {
			return
		}
	}
}

// write writes one event and flushes it, with no fault applied.
func (s *stream) write(name string, data any) {
	var b []byte
	if r, ok := data.(raw); ok {
		b = []byte(r)
	} else {
		var err error
		if b, err = json.Marshal(data); err != nil {
			panic(fmt.Sprintf("fakellm: encoding %s event: %v", name, err))
		}
	}
	if name != "" {
		fmt.Fprintf(s.w, "event: %s\n", name)
	}
	fmt.Fprintf(s.w, "data: %s\n\n", b)
	_ = s.rc.Flush()
	s.sent++
}

// wait pauses for d (forever if negative) and reports whether the response may go
// on: false when the client went away or the server is closing.
func (s *stream) wait(d time.Duration) bool {
	var timeout <-chan time.Time
	if d >= 0 {
		t := time.NewTimer(d)
		defer t.Stop()
		timeout = t.C
	}
	select {
	case <-timeout:
		return true
	case <-s.ctx.Done():
	case <-s.done:
	}
	return false
}

// writeJSON answers with a complete JSON body.
func writeJSON(w http.ResponseWriter, status int, body any) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(body)
}

// obj is a JSON object under construction.
type obj = map[string]any
