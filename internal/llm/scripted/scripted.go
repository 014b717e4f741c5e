// Package scripted is an in-process model for tests: each call to Stream plays the next
// scripted step, streaming its text and tool calls as a real provider would, and
// records the requests it was sent.
package scripted

import (
	"context"
	"encoding/json"
	"fmt"
	"sync"

	"github.com/gantry-dev/gantry/internal/llm"
)

// Step is one model response, or a function that computes it from the request.
type Step struct {
	Text             string
	Thinking         string
	Calls            []Call
	Usage            llm.Usage
	Err              error // returned instead of a response
	BlockUntilCancel bool  // stream Text, then wait for the context to end
	// StreamInput streams each call's arguments in pieces (DeltaToolInput) before the
	// call is whole, as a real API does; without it a call comes whole at once.
	StreamInput bool
	Func        func(req llm.Request) Step
}

// Call is one scripted tool call.
type Call struct {
	ID    string
	Name  string
	Input string // JSON
}

// Provider plays a script.
type Provider struct {
	mu       sync.Mutex
	steps    []Step
	requests []llm.Request
}

// New returns a provider that plays steps in order; past the end it answers "done".
func New(steps ...Step) *Provider { return &Provider{steps: steps} }

// Name implements llm.Provider.
func (p *Provider) Name() string { return "scripted" }

// Requests returns what the provider was sent.
func (p *Provider) Requests() []llm.Request {
	p.mu.Lock()
	defer p.mu.Unlock()
	return append([]llm.Request(nil), p.requests...)
}

// Stream implements llm.Provider.
func (p *Provider) Stream(ctx context.Context, req llm.Request, emit func(llm.Delta)) (llm.Response, error) {
	p.mu.Lock()
	p.requests = append(p.requests, req)
	var s Step
	if len(p.steps) > 0 {
		s, p.steps = p.steps[0], p.steps[1:]
	} else {
		s = Step{Text: "done"}
	}
	p.mu.Unlock()
	if s.Func != nil {
		s = s.Func(req)
	}
	if err := ctx.Err(); err != nil {
		return llm.Response{}, err
	}
	if s.Err != nil {
		return llm.Response{}, s.Err
	}
	msg := llm.Message{Role: llm.RoleAssistant}
	if s.Thinking != "" {
		emit(llm.Delta{Type: llm.DeltaThinking, Text: s.Thinking})
		msg.Content = append(msg.Content, llm.Block{Type: llm.BlockThinking, Text: s.Thinking})
	}
	if s.Text != "" {
		emit(llm.Delta{Type: llm.DeltaText, Text: s.Text})
		msg.Content = append(msg.Content, llm.Block{Type: llm.BlockText, Text: s.Text})
	}
	if s.BlockUntilCancel {
		<-ctx.Done()
		return llm.Response{Message: msg}, ctx.Err()
	}
	stop := "end_turn"
	for i, c := range s.Calls {
		id := c.ID
		if id == "" {
			id = fmt.Sprintf("call_%d_%d", len(p.requests), i)
		}
		b := llm.Block{Type: llm.BlockToolUse, ToolCallID: id, ToolName: c.Name, Input: json.RawMessage(c.Input)}
		for _, piece := range inputPieces(c.Input, s.StreamInput) {
			emit(llm.Delta{Type: llm.DeltaToolInput, Text: piece, Index: i, ToolCall: &llm.Block{Type: llm.BlockToolUse, ToolCallID: id, ToolName: c.Name}})
		}
		emit(llm.Delta{Type: llm.DeltaToolCall, ToolCall: &b, Index: i})
		msg.Content = append(msg.Content, b)
		stop = "tool_use"
	}
	u := s.Usage
	if u == (llm.Usage{}) {
		u = llm.Usage{InputTokens: 100, OutputTokens: 10}
	}
	return llm.Response{Message: msg, Usage: u, StopReason: stop}, nil
}

// inputPieces cuts a call's arguments in pieces of a few bytes, as a model streams
// them (at most 16 pieces, so that a long input stays cheap); none unless stream.
func inputPieces(input string, stream bool) []string {
	if !stream {
		return nil
	}
	size := max(8, (len(input)+15)/16)
	var out []string
	for len(input) > size {
		out = append(out, input[:size])
		input = input[size:]
	}
	if input != "" {
		out = append(out, input)
	}
	return out
}
