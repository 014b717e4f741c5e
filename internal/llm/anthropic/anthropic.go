// Package anthropic is the llm.Provider for the Anthropic Messages API, on the
// official SDK, streaming always. The SDK does not retry; wrap the provider with
// llm.WithRetry, which understands the *llm.RetryableError this package returns
// for rate limits, overload, server errors and cut streams.
package anthropic

import (
	"context"
	"fmt"
	"net/http"
	"os"
	"strings"

	"github.com/anthropics/anthropic-sdk-go/v2"
	"github.com/anthropics/anthropic-sdk-go/v2/option"

	"github.com/gantry-dev/gantry/internal/llm"
	"github.com/gantry-dev/gantry/internal/llm/reqbody"
)

// Options configure the provider. Empty fields fall back to what the SDK does by
// default: the API key from the environment (ANTHROPIC_API_KEY and the SDK's other
// credential sources), the base URL from ANTHROPIC_BASE_URL or the production API,
// and the SDK's HTTP client.
type Options struct {
	APIKey     string
	BaseURL    string
	HTTPClient *http.Client
	// MaxResponseBytes bounds the text, thinking and tool arguments of one
	// response (0: llm.DefaultMaxResponseBytes).
	MaxResponseBytes int
}

// defaultMaxTokens is the output limit of a request that sets none.
const defaultMaxTokens = 8192

// New returns the Anthropic provider.
// NoKey is the key sent to a server named by a base URL when no key is set: local
// servers ignore it, and the SDK sends nothing without a credential.
const NoKey = "no-key"

func New(o Options) llm.Provider {
	opts := []option.RequestOption{option.WithMaxRetries(0)}
	switch {
	case o.APIKey != "":
		opts = append(opts, option.WithAPIKey(o.APIKey))
	case o.BaseURL != "" || os.Getenv("ANTHROPIC_BASE_URL") != "":
		// A local server needs no key, but the SDK sends no request without one.
		opts = append(opts, option.WithAPIKey(NoKey))
	}
	if o.BaseURL != "" {
		opts = append(opts, option.WithBaseURL(o.BaseURL))
	}
	if o.HTTPClient != nil {
		opts = append(opts, option.WithHTTPClient(o.HTTPClient))
	}
	warmOnce.Do(func() { go warmEncoding() })
	return &provider{client: anthropic.NewClient(opts...), cache: newBodyCache(), maxBytes: o.MaxResponseBytes}
}

type provider struct {
	client   anthropic.Client
	cache    *reqbody.Cache
	maxBytes int
}

func (p *provider) Name() string { return "anthropic" }

// SearchesTools: the Messages API searches deferred tools itself.
func (p *provider) SearchesTools() bool { return true }

// Stream sends req and streams the answer. Text, thinking and a tool call's
// arguments are emitted as they arrive, each tool call whole once its block is
// complete.
func (p *provider) Stream(ctx context.Context, req llm.Request, emit func(llm.Delta)) (llm.Response, error) {
	body, err := p.cache.Body(req)
	if err != nil {
		return llm.Response{}, fmt.Errorf("anthropic: %w", err)
	}
	// The body is built by the cache from the SDK's own encoding; the params passed
	// beside it only name the model for the SDK's bookkeeping.
	params := anthropic.MessageNewParams{Model: anthropic.Model(req.Model)}
	stream := p.client.Messages.NewStreaming(ctx, params, option.WithRequestBody("application/json", body))
	defer stream.Close()

	var msg anthropic.Message
	// Text, thinking and tool arguments are gathered here, not by msg.Accumulate:
	// its string concatenation costs time quadratic in the length of a block, and
	// it empties arguments that are not JSON, which are kept (llm.ToolInput).
	pieces := map[int64]*strings.Builder{}
	args := map[int]string{} // a tool_use block's arguments text, by index
	budget := llm.NewBudget(p.maxBytes)
	stopped := false
	for stream.Next() {
		ev := stream.Current()
		if piece, kind, ok := deltaPiece(ev); ok {
			if ev.Index < 0 || ev.Index >= int64(len(msg.Content)) {
				return llm.Response{}, fmt.Errorf("anthropic: assembling the stream: a %s for content block %d, which has not started", ev.Delta.Type, ev.Index)
			}
			if err := budget.Take(len(piece)); err != nil {
				return llm.Response{}, err
			}
			b := pieces[ev.Index]
			if b == nil {
				b = &strings.Builder{}
				pieces[ev.Index] = b
			}
			b.WriteString(piece)
			if kind >= 0 {
				emit(llm.Delta{Type: kind, Text: piece})
			} else if c := msg.Content[ev.Index]; c.Type == "tool_use" {
				emit(llm.Delta{Type: llm.DeltaToolInput, Text: piece, Index: int(ev.Index),
					ToolCall: &llm.Block{Type: llm.BlockToolUse, ToolCallID: c.ID, ToolName: c.Name}})
			}
			continue
		}
		if err := msg.Accumulate(ev); err != nil {
			return llm.Response{}, fmt.Errorf("anthropic: assembling the stream: %w", err)
		}
		switch ev.Type {
		case "content_block_stop":
			if fill(&msg.Content[ev.Index], pieces[ev.Index]) {
				args[int(ev.Index)] = pieces[ev.Index].String()
			}
			delete(pieces, ev.Index)
			if b := msg.Content[ev.Index]; b.Type == "tool_use" {
				call := toolUse(b, args[int(ev.Index)])
				emit(llm.Delta{Type: llm.DeltaToolCall, ToolCall: &call, Index: int(ev.Index)})
			}
		case "message_stop":
			stopped = true
		}
	}
	if err := stream.Err(); err != nil {
		return llm.Response{}, classify(ctx, err)
	}
	if !stopped {
		return llm.Response{}, &llm.RetryableError{Err: fmt.Errorf("anthropic: stream ended before message_stop")}
	}
	for i, b := range pieces { // blocks whose stop never came
		if fill(&msg.Content[i], b) {
			args[int(i)] = b.String()
		}
	}
	return decodeMessage(msg, args), nil
}

// deltaPiece is the text of a text, thinking or tool-arguments delta, with the
// kind of llm.Delta to emit (-1 for arguments, emitted as DeltaToolInput with their
// call's id and name); ok is false for other events.
func deltaPiece(ev anthropic.MessageStreamEventUnion) (piece string, kind llm.DeltaType, ok bool) {
	if ev.Type != "content_block_delta" {
		return "", 0, false
	}
	switch ev.Delta.Type {
	case "text_delta":
		return ev.Delta.Text, llm.DeltaText, true
	case "thinking_delta":
		return ev.Delta.Thinking, llm.DeltaThinking, true
	case "input_json_delta":
		return ev.Delta.PartialJSON, -1, true
	}
	return "", 0, false
}

// fill puts the gathered deltas b of a block into it; true when they are the
// arguments of a tool call, which are not JSON: the caller keeps them.
func fill(c *anthropic.ContentBlockUnion, b *strings.Builder) bool {
	if b == nil {
		return false
	}
	switch c.Type {
	case "text":
		c.Text += b.String()
	case "thinking":
		c.Thinking += b.String()
	default:
		in, raw := llm.ToolInput([]byte(b.String()))
		c.Input = in
		return raw != ""
	}
	return false
}
