package openai

import (
	"bytes"
	"context"
	"fmt"
	"net/http"

	"github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/option"
	"github.com/openai/openai-go/v3/packages/ssestream"

	"github.com/gantry-dev/gantry/internal/llm"
	"github.com/gantry-dev/gantry/internal/llm/reqbody"
)

// NewChat returns the provider for the Chat Completions API, of OpenAI or of any
// compatible server at Options.BaseURL.
func NewChat(o Options) llm.Provider {
	return &chatProvider{client: newClient(o), cache: newChatCache(), maxBytes: o.MaxResponseBytes}
}

type chatProvider struct {
	client   openai.Client
	cache    *reqbody.Cache
	maxBytes int
}

func (p *chatProvider) Name() string { return "openai-chat" }

// Stream sends req and streams the answer: text and reasoning deltas as they
// arrive, the tool calls once the finish_reason says they are complete.
func (p *chatProvider) Stream(ctx context.Context, req llm.Request, emit func(llm.Delta)) (llm.Response, error) {
	const name = "openai-chat"
	body, err := p.cache.Body(req)
	if err != nil {
		return llm.Response{}, fmt.Errorf("%s: %w", name, err)
	}
	// The body is built by the cache from the SDK's own encoding; the params beside
	// it only name the model. The SDK's stream ends alike on data: [DONE] and on a
	// clean EOF; the raw response lets doneDecoder tell the two apart.
	var raw *http.Response
	if _, err := p.client.Chat.Completions.New(ctx, openai.ChatCompletionNewParams{Model: req.Model},
		option.WithRequestBody("application/json", body),
		option.WithJSONSet("stream", true), option.WithResponseBodyInto(&raw)); err != nil {
		return llm.Response{}, classify(ctx, name, err)
	}
	dec := &doneDecoder{Decoder: ssestream.NewDecoder(raw)}
	stream := ssestream.NewStream[openai.ChatCompletionChunk](dec, nil)
	defer stream.Close()

	a := chatAssembly{budget: llm.NewBudget(p.maxBytes)}
	for stream.Next() {
		if err := a.add(stream.Current(), emit); err != nil {
			return llm.Response{}, err
		}
	}
	if err := stream.Err(); err != nil {
		return llm.Response{}, classify(ctx, name, err)
	}
	if a.finish == "" || !dec.done {
		return llm.Response{}, &llm.RetryableError{Err: fmt.Errorf("%s: stream ended before finish_reason and [DONE]", name)}
	}
	return a.response(), nil
}

// doneDecoder notes whether the stream ended with its data: [DONE] event.
type doneDecoder struct {
	ssestream.Decoder
	done bool
}

func (d *doneDecoder) Next() bool {
	if !d.Decoder.Next() {
		return false
	}
	if bytes.HasPrefix(d.Event().Data, []byte("[DONE]")) {
		d.done = true
	}
	return true
}
