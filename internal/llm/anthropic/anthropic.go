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
	return &provider{client: anthropic.NewClient(opts...), cache: newBodyCache()}
}

type provider struct {
	client anthropic.Client
	cache  *reqbody.Cache
}

func (p *provider) Name() string { return "anthropic" }

// SearchesTools: the Messages API searches deferred tools itself.
func (p *provider) SearchesTools() bool { return true }

// Stream sends req and streams the answer. Text and thinking are emitted as they
// arrive, each tool call once its block is complete.
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
	stopped := false
	for stream.Next() {
		ev := stream.Current()
		if err := msg.Accumulate(ev); err != nil {
			return llm.Response{}, fmt.Errorf("anthropic: assembling the stream: %w", err)
		}
		switch ev.Type {
		case "content_block_delta":
			switch ev.Delta.Type {
			case "text_delta":
				emit(llm.Delta{Type: llm.DeltaText, Text: ev.Delta.Text})
			case "thinking_delta":
				emit(llm.Delta{Type: llm.DeltaThinking, Text: ev.Delta.Thinking})
			}
		case "content_block_stop":
			if b := msg.Content[ev.Index]; b.Type == "tool_use" {
				call := toolUse(b)
				emit(llm.Delta{Type: llm.DeltaToolCall, ToolCall: &call})
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
	return decodeMessage(msg), nil
}
