package llm_test

import (
	"context"
	"errors"
	"net/http"
	"strings"
	"testing"
	"time"

	"go.uber.org/goleak"

	"github.com/gantry-dev/gantry/internal/llm"
	"github.com/gantry-dev/gantry/internal/llm/anthropic"
	"github.com/gantry-dev/gantry/internal/llm/fakellm"
	"github.com/gantry-dev/gantry/internal/llm/openai"
)

// providers are the three wire formats, each on its own client.
var providers = []struct {
	name string
	make func(url string, c *http.Client) llm.Provider
}{
	{"anthropic", func(url string, c *http.Client) llm.Provider {
		return anthropic.New(anthropic.Options{APIKey: "k", BaseURL: url, HTTPClient: c})
	}},
	{"openai", func(url string, c *http.Client) llm.Provider {
		return openai.NewResponses(openai.Options{APIKey: "k", BaseURL: url + "/v1", HTTPClient: c})
	}},
	{"openai-chat", func(url string, c *http.Client) llm.Provider {
		return openai.NewChat(openai.Options{APIKey: "k", BaseURL: url + "/v1", HTTPClient: c})
	}},
}

func noWait(ctx context.Context, _ time.Duration) error { return ctx.Err() }

// A server that goes quiet — before its headers, after them, in the middle of the
// answer — is a retryable failure after the timeout, for every provider; the retry
// says why, and what had been streamed is dropped with the failed attempt.
func TestQuietServersAreRetried(t *testing.T) {
	defer goleak.VerifyNone(t)
	for _, pv := range providers {
		t.Run(pv.name, func(t *testing.T) {
			srv := fakellm.New(
				fakellm.Turn{Silent: fakellm.SilentBeforeHeaders},
				fakellm.Turn{Silent: fakellm.SilentAfterHeaders},
				fakellm.Turn{Parts: []fakellm.Part{fakellm.Text("a partial answer that never ends")}, StallAfter: 3},
				fakellm.Turn{Parts: []fakellm.Part{fakellm.Text("the answer")}},
			)
			defer srv.Close()
			client := &http.Client{Transport: llm.StallGuard(nil, 200*time.Millisecond, 200*time.Millisecond)}
			defer client.CloseIdleConnections()
			p := llm.WithRetry(pv.make(srv.URL(), client), llm.RetryPolicy{Sleep: noWait})
			var retries []string
			text := ""
			resp, err := p.Stream(context.Background(), llm.Request{Model: "m", MaxTokens: 100,
				Messages: []llm.Message{{Role: llm.RoleUser, Content: []llm.Block{{Type: llm.BlockText, Text: "hi"}}}}},
				func(d llm.Delta) {
					switch d.Type {
					case llm.DeltaRetry:
						retries = append(retries, d.Text)
						text = ""
					case llm.DeltaText:
						text += d.Text
					}
				})
			if err != nil {
				t.Fatal(err)
			}
			if got := resp.Message.Text(); got != "the answer" || text != "the answer" {
				t.Errorf("answer %q, streamed %q", got, text)
			}
			if len(retries) != 3 || !strings.Contains(retries[0], "model.firstByteTimeout") ||
				!strings.Contains(retries[1], "model.streamIdleTimeout") || !strings.Contains(retries[2], "model.streamIdleTimeout") {
				t.Errorf("retries: %q", retries)
			}
		})
	}
}

// The guard's timers are not the caller's: cancelling is a cancel, and a slow but
// steady stream (each event within the idle time) is not cut.
func TestStallGuardLeavesTheCallerAlone(t *testing.T) {
	defer goleak.VerifyNone(t)
	srv := fakellm.New(
		fakellm.Turn{Silent: fakellm.SilentAfterHeaders},
		fakellm.Turn{Parts: []fakellm.Part{fakellm.Text("one two three four five six")}, Delay: 60 * time.Millisecond},
	)
	defer srv.Close()
	client := &http.Client{Transport: llm.StallGuard(nil, time.Minute, 250*time.Millisecond)}
	defer client.CloseIdleConnections()
	p := anthropic.New(anthropic.Options{APIKey: "k", BaseURL: srv.URL(), HTTPClient: client})
	req := llm.Request{Model: "m", MaxTokens: 100, Messages: []llm.Message{{Role: llm.RoleUser, Content: []llm.Block{{Type: llm.BlockText, Text: "hi"}}}}}

	ctx, cancel := context.WithCancel(context.Background())
	go func() { <-srv.Stalled(1); cancel() }()
	_, err := p.Stream(ctx, req, func(llm.Delta) {})
	var se *llm.StallError
	if !errors.Is(err, context.Canceled) || errors.As(err, &se) || llm.IsRetryable(err) {
		t.Fatalf("a cancelled request failed with %v", err)
	}
	resp, err := p.Stream(context.Background(), req, func(llm.Delta) {})
	if err != nil || resp.Message.Text() != "one two three four five six" {
		t.Fatalf("a slow, steady stream: %q, %v", resp.Message.Text(), err)
	}
}
