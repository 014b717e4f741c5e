// Package llm is the one interface gantry has to language models: a provider-neutral
// conversation (messages of typed blocks), a streaming call, token usage and cost.
// The adapters for the real APIs live in the sub-packages anthropic and openai.
package llm

import (
	"context"
	"encoding/json"
	"errors"
)

// Role says who wrote a message.
type Role string

// The two roles of a conversation. Tool results travel in user messages, as the
// Anthropic API has them; the OpenAI adapters translate.
const (
	RoleUser      Role = "user"
	RoleAssistant Role = "assistant"
)

// BlockType names the kind of a content block.
type BlockType string

// The content block kinds.
const (
	BlockText       BlockType = "text"
	BlockThinking   BlockType = "thinking"
	BlockToolUse    BlockType = "tool_use"
	BlockToolResult BlockType = "tool_result"
	BlockImage      BlockType = "image"
	// BlockServer is a step the API took by itself within a response (its own tool
	// search): kept as the API sent it (Raw) and sent back only to that API.
	BlockServer BlockType = "server"
)

// Image is an image given to the model, inline.
type Image struct {
	MediaType string `json:"media_type"` // e.g. "image/png"
	Data      []byte `json:"data"`
}

// Block is one piece of a message. Which fields are set depends on Type.
type Block struct {
	Type BlockType `json:"type"`

	// Text for text and thinking blocks, and the text of a tool result.
	Text string `json:"text,omitempty"`
	// Signature authenticates a thinking block (Anthropic) so it can be sent back.
	Signature string `json:"signature,omitempty"`

	// ToolCallID links a tool_use block and its tool_result.
	ToolCallID string `json:"tool_call_id,omitempty"`
	// ToolName and Input describe a tool_use block.
	ToolName string          `json:"tool_name,omitempty"`
	Input    json.RawMessage `json:"input,omitempty"`
	// RawInput is the arguments text of a tool_use block when it was not valid JSON:
	// Input is then {}, the call is not run, and the text is kept as the model sent
	// it (see ToolInput).
	RawInput string `json:"raw_input,omitempty"`
	// IsError marks a tool result as a failure.
	IsError bool `json:"is_error,omitempty"`

	// Images for an image block (one) or for a tool result (any number).
	Images []Image `json:"images,omitempty"`

	// API names the API a server block came from ("anthropic", "openai"), Raw is the
	// block (or item) as that API sent it.
	API string          `json:"api,omitempty"`
	Raw json.RawMessage `json:"raw,omitempty"`
	// Found names the deferred tools a tool search loaded (a server block's, or a
	// tool_search result's): declared from then on.
	Found []string `json:"found,omitempty"`
}

// Message is one turn of the conversation.
type Message struct {
	Role    Role    `json:"role"`
	Content []Block `json:"content"`
}

// Text returns the concatenated text blocks of the message.
func (m Message) Text() string {
	var s string
	for _, b := range m.Content {
		if b.Type == BlockText {
			s += b.Text
		}
	}
	return s
}

// ToolCalls returns the tool_use blocks of the message, in order.
func (m Message) ToolCalls() []Block {
	var calls []Block
	for _, b := range m.Content {
		if b.Type == BlockToolUse {
			calls = append(calls, b)
		}
	}
	return calls
}

// ToolSpec declares one tool to the model.
type ToolSpec struct {
	Name        string          `json:"name"`
	Description string          `json:"description"`
	Schema      json.RawMessage `json:"input_schema"`
	// Defer sends the tool for the API's own tool search (defer_loading): it is not
	// in the model's prompt until a search finds it. Only a provider that searches
	// tools itself (SearchesTools) is given deferred tools.
	Defer bool `json:"defer,omitempty"`
	// Breakpoint marks the end of the part of the tools worth caching apart: the
	// tools plan mode keeps come first, and a request with a breakpoint here finds
	// them cached after a change of mode.
	Breakpoint bool `json:"-"`
}

// Request is one call to a model. Messages are immutable once sent: a provider may
// keep the encoding of a message it has seen, known by the identity of its content.
type Request struct {
	Model     string
	System    string
	Messages  []Message
	Tools     []ToolSpec
	MaxTokens int
	// CacheKey groups the requests that share a prefix (the session's id), for APIs
	// that route by it (OpenAI's prompt_cache_key).
	CacheKey string
}

// Usage counts the tokens of one response.
type Usage struct {
	InputTokens      int64 `json:"input_tokens"`
	OutputTokens     int64 `json:"output_tokens"`
	CacheReadTokens  int64 `json:"cache_read_tokens,omitempty"`
	CacheWriteTokens int64 `json:"cache_write_tokens,omitempty"`
}

// Add returns the sum of two usages.
func (u Usage) Add(o Usage) Usage {
	return Usage{
		InputTokens:      u.InputTokens + o.InputTokens,
		OutputTokens:     u.OutputTokens + o.OutputTokens,
		CacheReadTokens:  u.CacheReadTokens + o.CacheReadTokens,
		CacheWriteTokens: u.CacheWriteTokens + o.CacheWriteTokens,
	}
}

// DeltaType names a streamed piece of a response.
type DeltaType int

// The streamed pieces.
const (
	// DeltaText is a piece of answer text.
	DeltaText DeltaType = iota
	// DeltaThinking is a piece of reasoning text.
	DeltaThinking
	// DeltaToolCall says a tool call's arguments are whole: ToolCall is the call as
	// assembled, Index the same as its DeltaToolInput pieces'. It ends those pieces.
	DeltaToolCall
	// DeltaRetry says the attempt failed and is being retried: a face should discard
	// what it showed of the attempt. Text holds the reason.
	DeltaRetry
	// DeltaToolInput is a piece of a tool call's arguments (JSON text) as the model
	// writes them: Text is the piece, ToolCall names the call (its ToolCallID, which
	// may be empty until the call is whole, and ToolName; no Input), Index tells the
	// calls of a response apart.
	DeltaToolInput
)

// Delta is one streamed piece of a response.
type Delta struct {
	Type     DeltaType
	Text     string
	ToolCall *Block
	// Index is the tool call's place in the response (DeltaToolInput, DeltaToolCall):
	// the same for all the deltas of one call, different for each call.
	Index int
}

// Response is a complete model answer.
type Response struct {
	Message    Message
	Usage      Usage
	StopReason string // "end_turn", "tool_use", "max_tokens", …
}

// Provider is a model API. Stream sends the request, calls emit for every piece as it
// arrives, and returns the assembled response. Implementations must be safe for
// sequential reuse; emit is called from the calling goroutine's stack or one other,
// never concurrently.
type Provider interface {
	Name() string
	Stream(ctx context.Context, req Request, emit func(Delta)) (Response, error)
}

// ToolSearcher is a provider whose API searches deferred tools itself: it declares
// the API's tool search beside the tools marked Defer, and a found tool's schema
// reaches the model without changing the request's prefix.
type ToolSearcher interface {
	SearchesTools() bool
}

// SearchesTools reports whether p's API searches deferred tools itself.
func SearchesTools(p Provider) bool {
	s, ok := p.(ToolSearcher)
	return ok && s.SearchesTools()
}

// APIError is an error a model API answered, with its message; it wraps the SDK's.
type APIError struct {
	Msg   string
	Cause error
}

func (e *APIError) Error() string { return e.Msg }
func (e *APIError) Unwrap() error { return e.Cause }

// RetryableError marks a failure worth retrying (429, 5xx, overloaded, a cut stream).
type RetryableError struct {
	Err error
	// After, when positive, is the delay the server asked for (Retry-After), in seconds.
	After float64
}

func (e *RetryableError) Error() string { return e.Err.Error() }
func (e *RetryableError) Unwrap() error { return e.Err }

// IsRetryable reports whether err is worth another attempt.
func IsRetryable(err error) bool {
	var r *RetryableError
	return errors.As(err, &r)
}
