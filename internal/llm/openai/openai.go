// Package openai holds the llm.Providers for OpenAI's APIs, on the official SDK,
// streaming always: NewResponses for the Responses API and NewChat for Chat
// Completions, which also serves the many compatible servers (Ollama, vLLM,
// llama.cpp, LM Studio, OpenRouter) by base URL. The SDK does not retry; wrap a
// provider with llm.WithRetry, which understands the *llm.RetryableError returned
// for rate limits, server errors and cut streams.
//
// The conversation's tool results travel in user messages; they become
// function_call_output items (Responses) or role "tool" messages (Chat). Neither
// API has an error flag for a tool result, so a failed one is sent as text starting
// with "Error: ". Token counts are reported disjoint, as llm.Usage has them:
// InputTokens excludes cached and cache-written tokens.
package openai

import (
	"encoding/base64"
	"net/http"

	"github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/option"

	"github.com/gantry-dev/gantry/internal/llm"
)

// Options configure a provider. Empty fields fall back to what the SDK does by
// default: the API key from OPENAI_API_KEY, the base URL from OPENAI_BASE_URL or
// the production API, and the SDK's HTTP client. A compatible server's base URL
// usually ends in /v1.
type Options struct {
	APIKey     string
	BaseURL    string
	HTTPClient *http.Client
	// MaxResponseBytes bounds the text, reasoning and tool arguments of one
	// response (0: llm.DefaultMaxResponseBytes).
	MaxResponseBytes int
}

func newClient(o Options) openai.Client {
	opts := []option.RequestOption{option.WithMaxRetries(0)}
	if o.APIKey != "" {
		opts = append(opts, option.WithAPIKey(o.APIKey))
	}
	if o.BaseURL != "" {
		opts = append(opts, option.WithBaseURL(o.BaseURL))
	}
	if o.HTTPClient != nil {
		opts = append(opts, option.WithHTTPClient(o.HTTPClient))
	}
	return openai.NewClient(opts...)
}

// dataURL is img as a data: URL.
func dataURL(img llm.Image) string {
	return "data:" + img.MediaType + ";base64," + base64.StdEncoding.EncodeToString(img.Data)
}

// resultText is the text of a tool result as sent to the model.
func resultText(b llm.Block) string {
	if b.IsError {
		return "Error: " + b.Text
	}
	return b.Text
}

// arguments is a tool call's input as the APIs want it: a JSON object text.
// Arguments that were not JSON go back wrapped (llm.UnparsedInput), not verbatim:
// compatible servers refuse a history with a non-JSON arguments string.
func arguments(b llm.Block) string {
	if b.RawInput != "" {
		return string(llm.UnparsedInput(b.RawInput))
	}
	if len(b.Input) == 0 || string(b.Input) == "null" {
		return "{}"
	}
	return string(b.Input)
}

// toolUse is the tool_use block of a call with an arguments text: input {} when
// it is empty; when it is not JSON, input {} and the text kept (llm.ToolInput).
func toolUse(id, name, args string) llm.Block {
	in, raw := llm.ToolInput([]byte(args))
	return llm.Block{Type: llm.BlockToolUse, ToolCallID: id, ToolName: name, Input: in, RawInput: raw}
}

// usage makes disjoint counts from OpenAI's, where input includes cached tokens.
func usage(input, cached, written, output int64) llm.Usage {
	return llm.Usage{
		InputTokens:      max(input-cached-written, 0),
		OutputTokens:     output,
		CacheReadTokens:  cached,
		CacheWriteTokens: written,
	}
}
