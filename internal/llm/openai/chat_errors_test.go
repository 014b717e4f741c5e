package openai

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/gantry-dev/gantry/internal/llm"
)

// rawServer serves every request with handle and counts the requests; the chat
// provider it returns talks to it.
func rawServer(t *testing.T, handle http.HandlerFunc) (llm.Provider, *atomic.Int32) {
	t.Helper()
	var n atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		n.Add(1)
		handle(w, r)
	}))
	tr := &http.Transport{}
	t.Cleanup(func() {
		srv.Close()
		tr.CloseIdleConnections()
	})
	return NewChat(Options{APIKey: "test-key", BaseURL: srv.URL + "/v1/", HTTPClient: &http.Client{Transport: tr}}), &n
}

// status answers with code, the headers h and body.
func status(code int, h map[string]string, body string) http.HandlerFunc {
	return func(w http.ResponseWriter, _ *http.Request) {
		for k, v := range h {
			w.Header().Set(k, v)
		}
		w.WriteHeader(code)
		fmt.Fprint(w, body)
	}
}

// sse answers with the events, each a data: line.
func sse(events ...string) http.HandlerFunc {
	return func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "text/event-stream")
		for _, e := range events {
			fmt.Fprintf(w, "data: %s\n\n", e)
		}
	}
}

const (
	chunkText   = `{"choices":[{"index":0,"delta":{"role":"assistant","content":"Hello"},"finish_reason":null}]}`
	chunkFinish = `{"choices":[{"index":0,"delta":{},"finish_reason":"stop"}]}`
	chunkUsage  = `{"choices":[],"usage":{"prompt_tokens":10,"completion_tokens":2,"prompt_tokens_details":{"cached_tokens":4}}}`
)

func streamOnce(p llm.Provider) (llm.Response, error) {
	return llm.WithRetry(p, llm.RetryPolicy{Sleep: noSleep}).Stream(context.Background(), request("gpt-4o", userText("hi")), func(llm.Delta) {})
}

func TestChatRequestHeadersAndURL(t *testing.T) {
	t.Setenv("OPENAI_ORG_ID", "org-1")
	var got *http.Request
	p, _ := rawServer(t, func(w http.ResponseWriter, r *http.Request) {
		got = r.Clone(context.Background())
		sse(chunkText, chunkFinish, chunkUsage, "[DONE]")(w, r)
	})
	resp, err := streamOnce(p)
	if err != nil {
		t.Fatal(err)
	}
	if resp.Message.Text() != "Hello" || resp.Usage != (llm.Usage{InputTokens: 6, OutputTokens: 2, CacheReadTokens: 4}) {
		t.Errorf("response = %+v", resp)
	}
	h := got.Header
	if got.Method != http.MethodPost || got.URL.Path != "/v1/chat/completions" || h.Get("Authorization") != "Bearer test-key" ||
		h.Get("Content-Type") != "application/json" || h.Get("Accept") != "text/event-stream" || h.Get("OpenAI-Organization") != "org-1" {
		t.Errorf("%s %s with %v", got.Method, got.URL.Path, h)
	}
}

func TestChatNoKeyNoAuthorization(t *testing.T) {
	t.Setenv("OPENAI_API_KEY", "")
	var auth []string
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		auth = r.Header.Values("Authorization")
		sse(chunkText, chunkFinish, "[DONE]")(w, r)
	}))
	defer srv.Close()
	tr := &http.Transport{}
	defer tr.CloseIdleConnections()
	p := NewChat(Options{BaseURL: srv.URL, HTTPClient: &http.Client{Transport: tr}})
	if _, err := streamOnce(p); err != nil {
		t.Fatal(err)
	}
	if len(auth) != 0 {
		t.Errorf("Authorization sent without a key: %q", auth)
	}
}

func TestChatUnauthorizedIsNotRetried(t *testing.T) {
	p, n := rawServer(t, status(401, nil,
		`{"error":{"message":"Incorrect API key provided: sk-xx.","type":"invalid_request_error","param":null,"code":"invalid_api_key"}}`))
	_, err := streamOnce(p)
	var ae *llm.APIError
	if !errors.As(err, &ae) || llm.IsRetryable(err) || n.Load() != 1 ||
		err.Error() != "openai-chat: HTTP 401 invalid_api_key: Incorrect API key provided: sk-xx." {
		t.Fatalf("after %d requests: %v", n.Load(), err)
	}
}

func TestChatRateLimitRetryAfter(t *testing.T) {
	p, _ := rawServer(t, status(429, map[string]string{"Retry-After": "7"},
		`{"error":{"message":"Rate limit reached.","type":"requests","code":"rate_limit_exceeded"}}`))
	_, err := p.Stream(context.Background(), request("gpt-4o", userText("hi")), func(llm.Delta) {})
	var re *llm.RetryableError
	if !errors.As(err, &re) || re.After != 7 || !strings.Contains(err.Error(), "HTTP 429 rate_limit_exceeded: Rate limit reached.") {
		t.Fatalf("err = %v (%+v)", err, re)
	}
}

func TestChatServerErrorIsRetryable(t *testing.T) {
	p, _ := rawServer(t, status(500, nil, `{"error":{"message":"The server had an error.","type":"server_error","code":null}}`))
	_, err := p.Stream(context.Background(), request("gpt-4o", userText("hi")), func(llm.Delta) {})
	if !llm.IsRetryable(err) || !strings.Contains(err.Error(), "HTTP 500 server_error: The server had an error.") {
		t.Fatalf("err = %v", err)
	}
}

func TestChatErrorBodiesOfOtherShapes(t *testing.T) {
	long := "<html>" + strings.Repeat("Bad gateway. ", 10000) + "</html>"
	for _, c := range []struct {
		name, body string
		code       int
		retry      bool
		want       string
	}{
		{"html", "<html><body>502 Bad Gateway</body></html>\n", 502, true, "HTTP 502 : <html><body>502 Bad Gateway</body></html>"},
		{"empty", "", 503, true, "HTTP 503 : Service Unavailable"},
		{"string error", `{"error":"model \"qwen9\" not found, try pulling it first"}`, 404, false, `HTTP 404 : model "qwen9" not found, try pulling it first`},
		{"other JSON", `{"detail":"Not Found"}`, 404, false, `HTTP 404 : {"detail":"Not Found"}`},
		{"long", long, 400, false, "HTTP 400 : <html>Bad gateway. Bad gateway."},
	} {
		t.Run(c.name, func(t *testing.T) {
			p, _ := rawServer(t, status(c.code, nil, c.body))
			_, err := p.Stream(context.Background(), request("gpt-4o", userText("hi")), func(llm.Delta) {})
			if err == nil || llm.IsRetryable(err) != c.retry || !strings.Contains(err.Error(), c.want) || len(err.Error()) > errorTextLen+100 {
				t.Fatalf("err = %.300v", err)
			}
		})
	}
}

func TestChatErrorEventInStream(t *testing.T) {
	for _, c := range []struct {
		event, msg string
		retry      bool
	}{
		{`{"error":{"message":"The server is overloaded.","type":"server_error"}}`, "The server is overloaded.", true},
		{`{"error":{"message":"Context too long.","type":"invalid_request_error"}}`, "Context too long.", false},
	} {
		p, n := rawServer(t, sse(chunkText, c.event))
		var ds deltas
		_, err := llm.WithRetry(p, llm.RetryPolicy{Sleep: noSleep, MaxAttempts: 2}).Stream(context.Background(), request("gpt-4o", userText("hi")), ds.emit)
		if err == nil || llm.IsRetryable(err) != c.retry || !strings.Contains(err.Error(), "error in stream") ||
			!strings.Contains(err.Error(), c.msg) {
			t.Fatalf("%s: err = %v", c.event, err)
		}
		if want := map[bool]int32{true: 2, false: 1}[c.retry]; n.Load() != want {
			t.Errorf("%s: %d requests, want %d", c.event, n.Load(), want)
		}
		if text, _ := ds.text(llm.DeltaText); !strings.HasPrefix(text, "Hello") {
			t.Errorf("%s: the text before the error was not streamed: %q", c.event, text)
		}
	}
}

func TestChatStreamCutBeforeDone(t *testing.T) {
	for name, events := range map[string][]string{
		"before finish_reason": {chunkText},
		"after finish_reason":  {chunkText, chunkFinish, chunkUsage},
	} {
		p, _ := rawServer(t, sse(events...))
		_, err := p.Stream(context.Background(), request("gpt-4o", userText("hi")), func(llm.Delta) {})
		if !llm.IsRetryable(err) || !strings.Contains(err.Error(), "stream ended before finish_reason and [DONE]") {
			t.Errorf("%s: err = %v", name, err)
		}
	}
}
