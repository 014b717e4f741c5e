// Package openai holds the llm.Providers for OpenAI's APIs, streaming always:
// NewResponses for the Responses API and NewChat for Chat Completions, which also
// serves the many compatible servers (Ollama, vLLM, llama.cpp, LM Studio,
// OpenRouter) by base URL. Neither retries; wrap a provider with llm.WithRetry,
// which understands the *llm.RetryableError returned for rate limits, server
// errors and cut streams.
//
// The Responses provider is on the official SDK, but only on its responses
// package (and option, param, ssestream): the SDK's root package links every
// endpoint of the API, about 19 MB of the binary, and its package initialisation
// cost every gantry run, whatever the provider, some 5.7 MB of memory and 2 ms of
// start-up. Chat Completions, a small and stable wire format spoken by many
// servers, is spoken directly: its own wire types (chat_wire.go) over net/http,
// with the SDK's server-sent-events decoder.
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
	"os"
	"strings"
	"time"

	"github.com/gantry-dev/gantry/internal/llm"
)

// Options configure a provider. Empty fields fall back to what the SDK's client
// does by default: the API key from OPENAI_API_KEY, the base URL from
// OPENAI_BASE_URL or the production API, and an HTTP client of its own. A
// compatible server's base URL usually ends in /v1.
type Options struct {
	APIKey     string
	BaseURL    string
	HTTPClient *http.Client
	// MaxResponseBytes bounds the text, reasoning and tool arguments of one
	// response (0: llm.DefaultMaxResponseBytes).
	MaxResponseBytes int
}

// defaultBaseURL is the production API's, the SDK's default.
const defaultBaseURL = "https://api.openai.com/v1"

// resolved fills the empty fields of o with their defaults.
func (o Options) resolved() Options {
	if o.APIKey == "" {
		o.APIKey = os.Getenv("OPENAI_API_KEY")
	}
	if o.BaseURL == "" {
		o.BaseURL = os.Getenv("OPENAI_BASE_URL")
	}
	if o.BaseURL == "" {
		o.BaseURL = defaultBaseURL
	}
	if o.HTTPClient == nil {
		o.HTTPClient = defaultHTTPClient()
	}
	return o
}

// defaultHTTPClient is the SDK's default client: the default transport, with a
// bound on the wait for the response headers (streams are not cut by it).
func defaultHTTPClient() *http.Client {
	if t, ok := http.DefaultTransport.(*http.Transport); ok {
		t = t.Clone()
		t.ResponseHeaderTimeout = 10 * time.Minute
		return &http.Client{Transport: t}
	}
	return &http.Client{Transport: http.DefaultTransport}
}

// extraHeaders are the headers that the SDK's client takes from the environment:
// the organization (OPENAI_ORG_ID), the project (OPENAI_PROJECT_ID) and the
// "Name: value" lines of OPENAI_CUSTOM_HEADERS.
func extraHeaders() http.Header {
	h := http.Header{}
	if v, ok := os.LookupEnv("OPENAI_ORG_ID"); ok {
		h.Set("OpenAI-Organization", v)
	}
	if v, ok := os.LookupEnv("OPENAI_PROJECT_ID"); ok {
		h.Set("OpenAI-Project", v)
	}
	if v, ok := os.LookupEnv("OPENAI_CUSTOM_HEADERS"); ok {
		for _, line := range strings.Split(v, "\n") {
			if name, value, ok := strings.Cut(line, ":"); ok {
				h.Set(strings.TrimSpace(name), strings.TrimSpace(value))
			}
		}
	}
	return h
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
