package fakellm

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"strings"
	"sync"
	"time"

	"github.com/gantry-dev/gantry/internal/llm"
)

// Server is a fake model server on a loopback port. Each request it receives takes
// the next Turn of its script.
type Server struct {
	srv    *http.Server
	url    string
	done   chan struct{}
	served chan struct{}
	once   sync.Once

	mu     sync.Mutex
	script []Turn
	// respond, when set, answers each request instead of the script (NewFunc).
	respond func(Recorded) Turn
	reqs    []Recorded
	// stalls[i] is closed when the (i+1)th response stalls; nstalled have so far.
	stalls   []chan struct{}
	nstalled int
}

// Recorded is a request the server received.
type Recorded struct {
	Method string
	Path   string
	Header http.Header
	// Body is the decoded JSON body, nil if the body was not a JSON object.
	Body map[string]any
	// Raw is the body as sent.
	Raw []byte
}

// New starts a server on 127.0.0.1 with an ephemeral port, answering with the turns
// of script in order. Like httptest.NewServer it panics when it cannot listen.
func New(script ...Turn) *Server {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		panic(fmt.Sprintf("fakellm: listening on loopback: %v", err))
	}
	s := &Server{
		url:    "http://" + ln.Addr().String(),
		done:   make(chan struct{}),
		served: make(chan struct{}),
		script: append([]Turn(nil), script...),
	}
	s.srv = &http.Server{Handler: s, ReadHeaderTimeout: 10 * time.Second}
	go func() {
		defer close(s.served)
		_ = s.srv.Serve(ln)
	}()
	return s
}

// NewFunc starts a server like New whose every answer is respond's turn for the
// request — a model that reads the conversation it is sent (a resumed session gets
// the answer its history calls for). respond may be called from several goroutines
// at once.
func NewFunc(respond func(Recorded) Turn) *Server {
	s := New()
	s.mu.Lock()
	s.respond = respond
	s.mu.Unlock()
	return s
}

// URL is the server's base URL, http://127.0.0.1:port, without /v1. The Anthropic
// SDK takes it as is; the OpenAI SDK wants URL()+"/v1" (the paths without /v1 are
// served as well).
func (s *Server) URL() string { return s.url }

// Append adds turns to the end of the script.
func (s *Server) Append(turns ...Turn) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.script = append(s.script, turns...)
}

// Requests returns the requests received so far, in order.
func (s *Server) Requests() []Recorded {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]Recorded(nil), s.reqs...)
}

// Remaining is the number of script turns not yet served.
func (s *Server) Remaining() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return len(s.script)
}

// Stalled returns a channel that is closed once n responses in all have stalled:
// each of them, under its turn's StallAfter, has written and flushed its events and
// sends nothing more. It lets a test act while a client is mid-stream (kill it,
// cancel it) on that fact rather than after a guess of a sleep. The count runs from
// the server's start; for n < 1 the channel is closed already.
func (s *Server) Stalled(n int) <-chan struct{} {
	s.mu.Lock()
	defer s.mu.Unlock()
	if n < 1 {
		c := make(chan struct{})
		close(c)
		return c
	}
	return s.stallChan(n)
}

// stallChan returns the channel of the nth stall, making it if need be; s.mu is held.
func (s *Server) stallChan(n int) chan struct{} {
	for len(s.stalls) < n {
		s.stalls = append(s.stalls, make(chan struct{}))
	}
	return s.stalls[n-1]
}

// stalled counts a response that has just stalled and wakes its waiters.
func (s *Server) stalled() {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.nstalled++
	close(s.stallChan(s.nstalled))
}

// Close ends stalled responses, stops the server and waits until it has stopped.
func (s *Server) Close() {
	s.once.Do(func() {
		close(s.done)
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		if err := s.srv.Shutdown(ctx); err != nil {
			_ = s.srv.Close()
		}
		<-s.served
	})
}

// handler is the answer of one wire format.
type handler func(*call)

// route returns the handler for a path, with or without the /v1 prefix.
func route(path string) handler {
	switch strings.TrimPrefix(path, "/v1") {
	case "/messages":
		return serveAnthropic
	case "/responses":
		return serveResponses
	case "/chat/completions":
		return serveChat
	}
	return nil
}

// ServeHTTP records the request and answers it with the next turn.
func (s *Server) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	h := route(r.URL.Path)
	if h == nil {
		writeJSON(w, http.StatusNotFound, obj{"error": obj{"type": "not_found_error", "message": "fakellm: no endpoint " + r.URL.Path}})
		return
	}
	if r.Method != http.MethodPost {
		writeJSON(w, http.StatusMethodNotAllowed, obj{"error": obj{"type": "invalid_request_error", "message": "fakellm: POST only"}})
		return
	}
	body, err := io.ReadAll(r.Body)
	if err != nil {
		return // the client went away
	}
	var decoded map[string]any
	if json.Unmarshal(body, &decoded) != nil {
		decoded = nil
	}
	if decoded["stream"] != true {
		// Every endpoint answers a non-streaming request with one JSON object, which
		// gantry never asks for: refuse it as a real server would choke a client on it.
		s.mu.Lock()
		s.reqs = append(s.reqs, Recorded{Method: r.Method, Path: r.URL.Path, Header: r.Header.Clone(), Body: decoded, Raw: body})
		s.mu.Unlock()
		writeJSON(w, http.StatusBadRequest, obj{"error": obj{"type": "invalid_request_error", "message": "fakellm: only streaming requests (\"stream\": true) are served"}})
		return
	}
	turn, seq := s.take(Recorded{Method: r.Method, Path: r.URL.Path, Header: r.Header.Clone(), Body: decoded, Raw: body})
	model, _ := decoded["model"].(string)
	h(&call{w: w, r: r, done: s.done, stalled: s.stalled, turn: turn, seq: seq, body: decoded, model: model, usage: turn.usage(len(body))})
}

// take records req and pops the next turn; seq numbers the request from 1.
func (s *Server) take(req Recorded) (Turn, int) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.reqs = append(s.reqs, req)
	if respond := s.respond; respond != nil {
		n := len(s.reqs)
		s.mu.Unlock()
		defer s.mu.Lock()
		return respond(req), n
	}
	if len(s.script) == 0 {
		return exhausted, len(s.reqs)
	}
	t := s.script[0]
	s.script = s.script[1:]
	return t, len(s.reqs)
}

// call is one request being answered.
type call struct {
	w       http.ResponseWriter
	r       *http.Request
	done    <-chan struct{}
	stalled func() // called when the response stalls (Server.Stalled)
	turn    Turn
	seq     int
	body    map[string]any
	model   string
	usage   llm.Usage
}

// stream starts the SSE response.
func (c *call) stream() *stream { return newStream(c.w, c.r, c.done, c.stalled, c.turn) }

// fail answers with the turn's Status and the error body, with Retry-After on a
// 429 or 5xx.
func (c *call) fail(body any) {
	if c.turn.Status == http.StatusTooManyRequests || c.turn.Status >= 500 {
		v := c.turn.RetryAfter
		if v == "" {
			v = "0"
		}
		c.w.Header().Set("Retry-After", v)
	}
	writeJSON(c.w, c.turn.Status, body)
}
