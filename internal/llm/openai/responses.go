package openai

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/openai/openai-go/v3/option"
	"github.com/openai/openai-go/v3/responses"

	"github.com/gantry-dev/gantry/internal/llm"
	"github.com/gantry-dev/gantry/internal/llm/reqbody"
)

// NewResponses returns the provider for the OpenAI Responses API, on the SDK's
// responses package alone (see the package comment).
func NewResponses(o Options) llm.Provider {
	return &responsesProvider{client: newResponsesService(o), cache: newResponsesCache(), maxBytes: o.MaxResponseBytes}
}

// newResponsesService makes the SDK's service without its root client, with the
// defaults that client would apply (Options.resolved, extraHeaders) and no
// retries: llm.WithRetry retries.
func newResponsesService(o Options) responses.ResponseService {
	o = o.resolved()
	opts := []option.RequestOption{option.WithMaxRetries(0), option.WithBaseURL(o.BaseURL), option.WithHTTPClient(o.HTTPClient)}
	if o.APIKey != "" {
		opts = append(opts, option.WithAPIKey(o.APIKey))
	}
	h := extraHeaders()
	for k := range h {
		opts = append(opts, option.WithHeader(k, h.Get(k)))
	}
	return responses.NewResponseService(opts...)
}

type responsesProvider struct {
	client   responses.ResponseService
	cache    *reqbody.Cache
	maxBytes int
}

func (p *responsesProvider) Name() string { return "openai" }

// Stream sends req and streams the answer: text, reasoning-summary and function
// call arguments deltas as they arrive, each function call whole once its output
// item is done.
func (p *responsesProvider) Stream(ctx context.Context, req llm.Request, emit func(llm.Delta)) (llm.Response, error) {
	const name = "openai"
	body, err := p.cache.Body(req)
	if err != nil {
		return llm.Response{}, fmt.Errorf("%s: %w", name, err)
	}
	// The body is built by the cache from the SDK's own encoding; the params beside
	// it only name the model.
	stream := p.client.NewStreaming(ctx, responses.ResponseNewParams{Model: req.Model},
		option.WithRequestBody("application/json", body))
	defer stream.Close()

	msg := llm.Message{Role: llm.RoleAssistant}
	var final *responses.Response
	calls := map[int64]*llm.Block{} // the function calls being written, by output index
	budget := llm.NewBudget(p.maxBytes)
	for stream.Next() {
		ev := stream.Current()
		switch ev.Type {
		case "response.output_text.delta", "response.reasoning_summary_text.delta", "response.reasoning_text.delta",
			"response.function_call_arguments.delta":
			if err := budget.Take(len(ev.Delta)); err != nil {
				return llm.Response{}, err
			}
		}
		switch ev.Type {
		case "response.output_text.delta":
			emit(llm.Delta{Type: llm.DeltaText, Text: ev.Delta})
		case "response.reasoning_summary_text.delta", "response.reasoning_text.delta":
			emit(llm.Delta{Type: llm.DeltaThinking, Text: ev.Delta})
		case "response.output_item.added":
			if ev.Item.Type == "function_call" {
				calls[ev.OutputIndex] = &llm.Block{Type: llm.BlockToolUse, ToolCallID: ev.Item.CallID, ToolName: ev.Item.Name}
			}
		case "response.function_call_arguments.delta":
			if c := calls[ev.OutputIndex]; c != nil {
				emit(llm.Delta{Type: llm.DeltaToolInput, Text: ev.Delta, Index: int(ev.OutputIndex), ToolCall: c})
			}
		case "response.output_item.done":
			b, ok := outputBlock(ev.Item)
			if !ok {
				continue
			}
			msg.Content = append(msg.Content, b)
			if b.Type == llm.BlockToolUse {
				call := b
				emit(llm.Delta{Type: llm.DeltaToolCall, ToolCall: &call, Index: int(ev.OutputIndex)})
				delete(calls, ev.OutputIndex)
			}
		case "response.completed", "response.incomplete":
			r := ev.Response
			final = &r
		case "response.failed":
			e := ev.Response.Error
			return llm.Response{}, streamError(name, fmt.Sprintf("%s: %s", e.Code, e.Message), retryableCode(string(e.Code)))
		case "error":
			return llm.Response{}, streamError(name, fmt.Sprintf("%s: %s", ev.Code, ev.Message), retryableCode(ev.Code))
		}
	}
	if err := stream.Err(); err != nil {
		return llm.Response{}, classify(ctx, name, err)
	}
	if final == nil {
		return llm.Response{}, &llm.RetryableError{Err: fmt.Errorf("%s: stream ended before response.completed", name)}
	}
	u := final.Usage
	return llm.Response{
		Message:    msg,
		Usage:      usage(u.InputTokens, u.InputTokensDetails.CachedTokens, u.InputTokensDetails.CacheWriteTokens, u.OutputTokens),
		StopReason: responsesStopReason(final, msg),
	}, nil
}

// outputBlock maps a finished output item; ok is false for items gantry does not
// use (hosted tools).
func outputBlock(item responses.ResponseOutputItemUnion) (llm.Block, bool) {
	switch item.Type {
	case "message":
		var b strings.Builder
		for _, c := range item.Content {
			switch c.Type {
			case "output_text":
				b.WriteString(c.Text)
			case "refusal":
				b.WriteString(c.Refusal)
			}
		}
		return llm.Block{Type: llm.BlockText, Text: b.String()}, true
	case "reasoning":
		texts := make([]string, 0, len(item.Summary))
		for _, s := range item.Summary {
			texts = append(texts, s.Text)
		}
		ref := reasoningRef{ID: item.ID, EncryptedContent: item.EncryptedContent}
		return llm.Block{Type: llm.BlockThinking, Text: strings.Join(texts, "\n\n"), Signature: ref.signature()}, true
	case "tool_search_call", "tool_search_output":
		return serverBlock(item), true
	case "function_call":
		return toolUse(item.CallID, item.Name, item.Arguments.OfString), true
	}
	return llm.Block{}, false
}

// responsesStopReason says why the response ended, in the llm vocabulary.
func responsesStopReason(r *responses.Response, msg llm.Message) string {
	if r.Status == "incomplete" {
		switch r.IncompleteDetails.Reason {
		case "max_output_tokens":
			return "max_tokens"
		case "":
			return "incomplete"
		default:
			return string(r.IncompleteDetails.Reason)
		}
	}
	if len(msg.ToolCalls()) > 0 {
		return "tool_use"
	}
	return "end_turn"
}

// serverBlock keeps a step of the API's own tool search as the API sent it, to be
// sent back as it was; an output names the tools it loaded.
func serverBlock(item responses.ResponseOutputItemUnion) llm.Block {
	raw := json.RawMessage(item.RawJSON())
	b := llm.Block{Type: llm.BlockServer, API: apiName, Raw: raw, Text: "tool search"}
	var out struct {
		Tools []struct {
			Name  string `json:"name"`
			Tools []struct {
				Name string `json:"name"`
			} `json:"tools"`
		} `json:"tools"`
	}
	if item.Type == "tool_search_output" && json.Unmarshal(raw, &out) == nil {
		for _, t := range out.Tools {
			if len(t.Tools) == 0 {
				b.Found = append(b.Found, t.Name)
			}
			for _, sub := range t.Tools {
				b.Found = append(b.Found, sub.Name)
			}
		}
		b.Text = "tool search found: " + strings.Join(b.Found, ", ")
	}
	return b
}

// SearchesTools: the Responses API searches deferred tools itself.
func (p *responsesProvider) SearchesTools() bool { return true }
