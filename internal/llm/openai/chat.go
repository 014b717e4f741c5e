package openai

import (
	"bytes"
	"context"
	"fmt"
	"net/http"
	"strings"

	"github.com/openai/openai-go/v3/packages/ssestream"

	"github.com/gantry-dev/gantry/internal/llm"
	"github.com/gantry-dev/gantry/internal/llm/reqbody"
)

// NewChat returns the provider for the Chat Completions API, of OpenAI or of any
// compatible server at Options.BaseURL. It speaks the API with its own wire types
// (chat_wire.go) over plain HTTP.
func NewChat(o Options) llm.Provider {
	o = o.resolved()
	return &chatProvider{
		url:      strings.TrimRight(o.BaseURL, "/") + "/chat/completions",
		key:      o.APIKey,
		headers:  extraHeaders(),
		client:   o.HTTPClient,
		cache:    newChatCache(),
		maxBytes: o.MaxResponseBytes,
	}
}

type chatProvider struct {
	url, key string
	headers  http.Header
	client   *http.Client
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
	res, err := p.post(ctx, body)
	if err != nil {
		return llm.Response{}, classify(ctx, name, err)
	}
	// The stream ends alike on data: [DONE] and on a clean EOF; doneDecoder tells
	// the two apart.
	dec := &doneDecoder{Decoder: ssestream.NewDecoder(res)}
	stream := ssestream.NewStream[chatChunk](dec, nil)
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

// post sends body and returns the response when its status is a success; an
// error status is returned as an *httpError.
func (p *chatProvider) post(ctx context.Context, body []byte) (*http.Response, error) {
	r, err := http.NewRequestWithContext(ctx, http.MethodPost, p.url, bytes.NewReader(body))
	if err != nil {
		return nil, fmt.Errorf("making the request: %w", err)
	}
	for k, v := range p.headers {
		r.Header[k] = v
	}
	r.Header.Set("Content-Type", "application/json")
	r.Header.Set("Accept", "text/event-stream")
	if p.key != "" {
		r.Header.Set("Authorization", "Bearer "+p.key)
	}
	res, err := p.client.Do(r)
	if err != nil {
		return nil, err
	}
	if res.StatusCode >= 400 {
		defer res.Body.Close()
		return nil, readHTTPError(res)
	}
	return res, nil
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
