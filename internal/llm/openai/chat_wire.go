package openai

import "encoding/json"

// The wire types of Chat Completions: only the fields gantry sends and reads,
// encoded with encoding/json. They replace the SDK's root package, whose every
// endpoint would be linked and initialised in every gantry run; the request
// bodies are the same JSON the SDK produced (testdata/golden/chat).

// chatRequest is the body of POST /chat/completions; "stream": true is added by
// the body cache in front of it.
type chatRequest struct {
	Messages            []chatMessage     `json:"messages"`
	Model               string            `json:"model"`
	MaxCompletionTokens int64             `json:"max_completion_tokens,omitempty"`
	PromptCacheKey      string            `json:"prompt_cache_key,omitempty"`
	StreamOptions       chatStreamOptions `json:"stream_options"`
	Tools               []chatTool        `json:"tools,omitempty"`
}

type chatStreamOptions struct {
	IncludeUsage bool `json:"include_usage"`
}

// chatMessage is a message of any role. Content is a string, a []chatPart, or
// nil to leave it out (an assistant message with tool calls and no text).
type chatMessage struct {
	Content    any            `json:"content,omitempty"`
	ToolCalls  []chatToolCall `json:"tool_calls,omitempty"`
	ToolCallID string         `json:"tool_call_id,omitempty"`
	Role       string         `json:"role"`
}

// chatPart is a content part: a text (Text set, even empty) or an image.
type chatPart struct {
	Text     *string       `json:"text,omitempty"`
	ImageURL *chatImageURL `json:"image_url,omitempty"`
	Type     string        `json:"type"`
}

type chatImageURL struct {
	URL string `json:"url"`
}

func textPart(s string) chatPart { return chatPart{Type: "text", Text: &s} }

type chatToolCall struct {
	ID       string           `json:"id"`
	Function chatFunctionCall `json:"function"`
	Type     string           `json:"type"`
}

type chatFunctionCall struct {
	Arguments string `json:"arguments"`
	Name      string `json:"name"`
}

type chatTool struct {
	Function chatFunction `json:"function"`
	Type     string       `json:"type"`
}

type chatFunction struct {
	Name        string         `json:"name"`
	Description string         `json:"description,omitempty"`
	Parameters  map[string]any `json:"parameters"`
}

// chatChunk is one event of the stream.
type chatChunk struct {
	Choices []chatChoice `json:"choices"`
	// Usage comes in a last chunk of its own (stream_options.include_usage); nil
	// elsewhere.
	Usage *chatUsage `json:"usage"`
}

type chatChoice struct {
	Index        int64     `json:"index"`
	Delta        chatDelta `json:"delta"`
	FinishReason string    `json:"finish_reason"`
}

// chatDelta is the new part of choice's message. Compatible servers send
// reasoning text in the non-standard reasoning_content (DeepSeek, vLLM,
// llama.cpp) or reasoning (Ollama, OpenRouter); a value of another type there is
// ignored rather than failing the chunk.
type chatDelta struct {
	Content          string          `json:"content"`
	ReasoningContent looseString     `json:"reasoning_content"`
	Reasoning        looseString     `json:"reasoning"`
	ToolCalls        []chatCallDelta `json:"tool_calls"`
}

type chatCallDelta struct {
	Index    int64            `json:"index"`
	ID       string           `json:"id"`
	Function chatFunctionCall `json:"function"`
}

type chatUsage struct {
	PromptTokens        int64 `json:"prompt_tokens"`
	CompletionTokens    int64 `json:"completion_tokens"`
	PromptTokensDetails struct {
		CachedTokens     int64 `json:"cached_tokens"`
		CacheWriteTokens int64 `json:"cache_write_tokens"`
	} `json:"prompt_tokens_details"`
}

// looseString decodes a JSON string; any other value decodes as "".
type looseString string

func (s *looseString) UnmarshalJSON(b []byte) error {
	var v string
	if json.Unmarshal(b, &v) == nil {
		*s = looseString(v)
	}
	return nil
}
