// Package dap talks the Debug Adapter Protocol to the debug adapters of the table in
// adapters.go (delve, debugpy, lldb-dap, dart): a client over go-dap's framing and
// messages, the start of an adapter as a contained process, and one debug session's
// state (where it stopped, its output, its breakpoints) for the debug tool.
package dap

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"
	"sync"

	godap "github.com/google/go-dap"
)

// ErrClosed is the error of a request to an adapter whose connection has ended.
var ErrClosed = errors.New("the debug adapter's connection is closed")

// Client is one connection to a debug adapter: requests matched to their responses
// by sequence number, events and the adapter's own requests handed to the session.
// One goroutine reads; any may send.
type Client struct {
	conn io.ReadWriteCloser

	wmu sync.Mutex // one message written at a time
	mu  sync.Mutex
	seq int
	// pending are the requests awaiting a response, by seq.
	pending map[int]chan godap.Message

	onEvent func(godap.Message)
	done    chan struct{}
	err     error // why the reader stopped, once done is closed
}

// NewClient reads conn until it ends, giving every event to onEvent (from the
// reader's goroutine: it must not block on a request). The adapter's requests to the
// client (runInTerminal, startDebugging) are answered as unsupported: gantry asks
// the adapters for output events and a single session instead.
func NewClient(conn io.ReadWriteCloser, onEvent func(godap.Message)) *Client {
	c := &Client{conn: conn, pending: map[int]chan godap.Message{}, onEvent: onEvent, done: make(chan struct{})}
	go c.read()
	return c
}

// Done is closed when the connection has ended; Err then says why.
func (c *Client) Done() <-chan struct{} { return c.done }

// Err is why the connection ended (nil before Done is closed; io.EOF for a clean end).
func (c *Client) Err() error {
	select {
	case <-c.done:
		return c.err
	default:
		return nil
	}
}

// Close ends the connection (the reader stops, pending requests fail).
func (c *Client) Close() error { return c.conn.Close() }

func (c *Client) read() {
	r := bufio.NewReaderSize(c.conn, 64<<10)
	var err error
	for {
		var data []byte
		if data, err = godap.ReadBaseMessage(r); err != nil {
			break
		}
		m, derr := decode(data)
		if derr != nil {
			continue // not a DAP message we can read: skipped, as a client should
		}
		switch m := m.(type) {
		case godap.ResponseMessage:
			c.mu.Lock()
			ch := c.pending[m.GetResponse().RequestSeq]
			delete(c.pending, m.GetResponse().RequestSeq)
			c.mu.Unlock()
			if ch != nil {
				ch <- m
			}
		case godap.EventMessage:
			if c.onEvent != nil {
				c.onEvent(m)
			}
		case godap.RequestMessage:
			req := m.GetRequest()
			go c.refuse(req)
		}
	}
	c.mu.Lock()
	c.err = err
	pending := c.pending
	c.pending = map[int]chan godap.Message{}
	c.mu.Unlock()
	close(c.done)
	for _, ch := range pending {
		close(ch)
	}
}

// decode reads one message; one that go-dap's table does not know (an adapter's own
// event such as debugpy's or dart's, a response to a command it lacks) is kept as
// its base type.
func decode(data []byte) (godap.Message, error) {
	m, err := godap.DecodeProtocolMessage(data)
	if err == nil {
		return m, nil
	}
	var fe *godap.DecodeProtocolMessageFieldError
	if !errors.As(err, &fe) {
		return nil, err
	}
	var base struct {
		Type string `json:"type"`
	}
	if err := json.Unmarshal(data, &base); err != nil {
		return nil, err
	}
	switch base.Type {
	case "event":
		e := &godap.Event{}
		return e, json.Unmarshal(data, e)
	case "response":
		r := &godap.Response{}
		return r, json.Unmarshal(data, r)
	case "request":
		r := &godap.Request{}
		return r, json.Unmarshal(data, r)
	}
	return nil, err
}

// refuse answers a request of the adapter's that gantry does not serve.
func (c *Client) refuse(req *godap.Request) {
	resp := &godap.ErrorResponse{Response: godap.Response{
		ProtocolMessage: godap.ProtocolMessage{Type: "response"},
		RequestSeq:      req.Seq, Command: req.Command, Success: false,
		Message: "gantry does not support " + req.Command,
	}}
	_ = c.write(resp)
}

func (c *Client) write(m godap.Message) error {
	c.wmu.Lock()
	defer c.wmu.Unlock()
	c.mu.Lock()
	c.seq++
	seq := c.seq
	c.mu.Unlock()
	switch m := m.(type) {
	case godap.RequestMessage:
		m.GetRequest().Seq, m.GetRequest().Type = seq, "request"
	case godap.ResponseMessage:
		m.GetResponse().Seq = seq
	}
	return godap.WriteProtocolMessage(c.conn, m)
}

// Pending is a request sent whose response has not been read yet.
type Pending struct {
	c       *Client
	command string
	ch      chan godap.Message
}

// Send sends req (its seq set here) without waiting for the response: Wait gets it.
func (c *Client) Send(req godap.RequestMessage) (*Pending, error) {
	ch := make(chan godap.Message, 1)
	c.wmu.Lock()
	defer c.wmu.Unlock()
	c.mu.Lock()
	select {
	case <-c.done:
		c.mu.Unlock()
		return nil, ErrClosed
	default:
	}
	c.seq++
	r := req.GetRequest()
	r.Seq, r.Type = c.seq, "request"
	c.pending[r.Seq] = ch
	c.mu.Unlock()
	if err := godap.WriteProtocolMessage(c.conn, req); err != nil {
		c.mu.Lock()
		delete(c.pending, r.Seq)
		c.mu.Unlock()
		return nil, fmt.Errorf("sending %s to the debug adapter: %w", r.Command, err)
	}
	return &Pending{c: c, command: r.Command, ch: ch}, nil
}

// Wait waits for the response; a failure is an error with the adapter's message.
func (p *Pending) Wait(ctx context.Context) (godap.ResponseMessage, error) {
	select {
	case m, ok := <-p.ch:
		if !ok {
			return nil, ErrClosed
		}
		resp := m.(godap.ResponseMessage)
		if r := resp.GetResponse(); !r.Success {
			return nil, &ResponseError{Command: p.command, Message: errorText(resp)}
		}
		return resp, nil
	case <-ctx.Done():
		return nil, ctx.Err()
	}
}

// Do sends req and waits for its response.
func (c *Client) Do(ctx context.Context, req godap.RequestMessage) (godap.ResponseMessage, error) {
	p, err := c.Send(req)
	if err != nil {
		return nil, err
	}
	return p.Wait(ctx)
}

// ResponseError is an adapter's refusal of a request.
type ResponseError struct {
	Command, Message string
}

func (e *ResponseError) Error() string {
	if e.Message == "" {
		return e.Command + " failed"
	}
	return e.Command + ": " + e.Message
}

// errorText is what a failed response says: its body's formatted error (its
// variables filled in) or else its message.
func errorText(m godap.ResponseMessage) string {
	if er, ok := m.(*godap.ErrorResponse); ok && er.Body.Error != nil {
		s := er.Body.Error.Format
		for k, v := range er.Body.Error.Variables {
			s = strings.ReplaceAll(s, "{"+k+"}", v)
		}
		if s != "" {
			return s
		}
	}
	return m.GetResponse().Message
}
