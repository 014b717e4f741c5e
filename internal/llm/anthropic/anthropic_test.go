package anthropic

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"net"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/gantry-dev/gantry/internal/llm"
	"github.com/gantry-dev/gantry/internal/llm/fakellm"
)

func setup(t *testing.T, turns ...fakellm.Turn) (llm.Provider, *fakellm.Server) {
	t.Helper()
	srv := fakellm.New(turns...)
	tr := &http.Transport{}
	t.Cleanup(func() {
		srv.Close()
		tr.CloseIdleConnections()
	})
	return New(Options{APIKey: "test-key", BaseURL: srv.URL(), HTTPClient: &http.Client{Transport: tr}}), srv
}

func noSleep(ctx context.Context, _ time.Duration) error { return ctx.Err() }

type deltas []llm.Delta

func (d *deltas) emit(x llm.Delta) { *d = append(*d, x) }

func (d deltas) text(kind llm.DeltaType) (string, int) {
	var b strings.Builder
	n := 0
	for _, x := range d {
		if x.Type == kind {
			b.WriteString(x.Text)
			n++
		}
	}
	return b.String(), n
}

func userText(s string) llm.Message {
	return llm.Message{Role: llm.RoleUser, Content: []llm.Block{{Type: llm.BlockText, Text: s}}}
}

func request(msgs ...llm.Message) llm.Request {
	return llm.Request{Model: "claude-sonnet-4-5", System: "You are gantry.", Messages: msgs}
}

// jsonPath walks decoded JSON by object keys and array indexes.
func jsonPath(t *testing.T, v any, path ...any) any {
	t.Helper()
	for _, p := range path {
		switch k := p.(type) {
		case string:
			m, ok := v.(map[string]any)
			if !ok {
				t.Fatalf("at %v: %T is not an object", p, v)
			}
			v = m[k]
		case int:
			a, ok := v.([]any)
			if !ok || k >= len(a) {
				t.Fatalf("at %v: %v is not an array that long", p, v)
			}
			v = a[k]
		}
	}
	return v
}

const answer = "The module is called gantry and it lives in the main folder of the checkout."

func TestStreamText(t *testing.T) {
	p, srv := setup(t, fakellm.Turn{Parts: []fakellm.Part{fakellm.Text(answer)}})
	var ds deltas
	resp, err := p.Stream(context.Background(), request(userText("What is the module?")), ds.emit)
	if err != nil {
		t.Fatalf("Stream: %v", err)
	}
	text, n := ds.text(llm.DeltaText)
	if text != answer || n < 3 {
		t.Fatalf("streamed %q in %d deltas", text, n)
	}
	if resp.Message.Role != llm.RoleAssistant || resp.Message.Text() != answer || resp.StopReason != "end_turn" {
		t.Fatalf("response = %+v", resp)
	}
	reqs := srv.Requests()
	if len(reqs) != 1 || reqs[0].Path != "/v1/messages" {
		t.Fatalf("requests = %+v", reqs)
	}
	r := reqs[0]
	// The SDK decides the header: x-api-key or a bearer token.
	if r.Header.Get("X-Api-Key") != "test-key" && r.Header.Get("Authorization") != "Bearer test-key" {
		t.Errorf("no API key in headers %v", r.Header)
	}
	if r.Body["stream"] != true || r.Body["model"] != "claude-sonnet-4-5" || r.Body["max_tokens"] != float64(8192) {
		t.Errorf("body = %v", r.Body)
	}
	if got := jsonPath(t, r.Body, "system", 0, "cache_control", "type"); got != "ephemeral" {
		t.Errorf("system cache_control = %v", got)
	}
	if got := jsonPath(t, r.Body, "messages", 0, "content", 0, "cache_control", "type"); got != "ephemeral" {
		t.Errorf("last message cache_control = %v", got)
	}
}

func TestMaxTokensIsPassed(t *testing.T) {
	p, srv := setup(t)
	req := request(userText("hi"))
	req.MaxTokens = 1000
	if _, err := p.Stream(context.Background(), req, func(llm.Delta) {}); err != nil {
		t.Fatal(err)
	}
	if got := srv.Requests()[0].Body["max_tokens"]; got != float64(1000) {
		t.Fatalf("max_tokens = %v", got)
	}
}

func TestStreamThinking(t *testing.T) {
	thought := "The user asks for the module name, which go.mod declares."
	p, _ := setup(t, fakellm.Turn{Parts: []fakellm.Part{fakellm.Thinking(thought), fakellm.Text("gantry")}})
	var ds deltas
	resp, err := p.Stream(context.Background(), request(userText("module?")), ds.emit)
	if err != nil {
		t.Fatal(err)
	}
	if got, n := ds.text(llm.DeltaThinking); got != thought || n < 2 {
		t.Fatalf("thinking deltas %q (%d)", got, n)
	}
	b := resp.Message.Content[0]
	if b.Type != llm.BlockThinking || b.Text != thought || b.Signature == "" {
		t.Fatalf("thinking block = %+v", b)
	}
	// The signed thinking block goes back verbatim; an unsigned one is dropped.
	p2, srv := setup(t)
	unsigned := llm.Block{Type: llm.BlockThinking, Text: "from elsewhere"}
	hist := []llm.Message{userText("module?"), resp.Message,
		{Role: llm.RoleAssistant, Content: []llm.Block{unsigned, {Type: llm.BlockText, Text: "x"}}}, userText("thanks")}
	if _, err := p2.Stream(context.Background(), request(hist...), func(llm.Delta) {}); err != nil {
		t.Fatal(err)
	}
	body := srv.Requests()[0].Body
	if got := jsonPath(t, body, "messages", 1, "content", 0); got.(map[string]any)["signature"] != b.Signature {
		t.Errorf("thinking sent back as %v", got)
	}
	if got := jsonPath(t, body, "messages", 2, "content", 0, "type"); got != "text" {
		t.Errorf("unsigned thinking was sent: first block type %v", got)
	}
}

func TestToolCallRoundTrip(t *testing.T) {
	p, srv := setup(t,
		fakellm.Turn{Parts: []fakellm.Part{
			fakellm.Text("Let me look."),
			fakellm.ToolCall("toolu_1", "read", `{"path":"go.mod","lines":[1,20],"note":"héllo wörld"}`),
			fakellm.ToolCall("toolu_2", "ls", ""),
		}},
		fakellm.Turn{Parts: []fakellm.Part{fakellm.Text("It is gantry.")}},
	)
	tools := []llm.ToolSpec{{Name: "read", Description: "Read a file.",
		Schema: json.RawMessage(`{"type":"object","properties":{"path":{"type":"string"}},"required":["path"]}`)}}
	req := request(userText("module?"))
	req.Tools = tools
	var ds deltas
	resp, err := p.Stream(context.Background(), req, ds.emit)
	if err != nil {
		t.Fatal(err)
	}
	var calls []*llm.Block
	for _, d := range ds {
		if d.Type == llm.DeltaToolCall {
			calls = append(calls, d.ToolCall)
		}
	}
	if len(calls) != 2 || calls[0].ToolName != "read" || calls[1].ToolCallID != "toolu_2" {
		t.Fatalf("tool call deltas = %+v", calls)
	}
	if string(calls[0].Input) != `{"path":"go.mod","lines":[1,20],"note":"héllo wörld"}` || string(calls[1].Input) != "{}" {
		t.Fatalf("inputs %s and %s", calls[0].Input, calls[1].Input)
	}
	if resp.StopReason != "tool_use" || len(resp.Message.ToolCalls()) != 2 {
		t.Fatalf("response = %+v", resp)
	}
	results := llm.Message{Role: llm.RoleUser, Content: []llm.Block{
		{Type: llm.BlockToolResult, ToolCallID: "toolu_1", Text: "module github.com/gantry-dev/gantry"},
		{Type: llm.BlockToolResult, ToolCallID: "toolu_2", Text: "ls: permission denied", IsError: true},
	}}
	req.Messages = append(req.Messages, resp.Message, results)
	resp2, err := p.Stream(context.Background(), req, func(llm.Delta) {})
	if err != nil || resp2.Message.Text() != "It is gantry." {
		t.Fatalf("second turn: %v %+v", err, resp2)
	}

	body := srv.Requests()[1].Body
	if got := jsonPath(t, body, "tools", 0); got.(map[string]any)["name"] != "read" ||
		jsonPath(t, got, "input_schema", "required", 0) != "path" {
		t.Errorf("tool = %v", got)
	}
	use := jsonPath(t, body, "messages", 1, "content", 1).(map[string]any)
	if use["type"] != "tool_use" || use["id"] != "toolu_1" || jsonPath(t, use, "input", "path") != "go.mod" {
		t.Errorf("tool_use sent back as %v", use)
	}
	if got := jsonPath(t, body, "messages", 1, "content", 2, "input"); len(got.(map[string]any)) != 0 {
		t.Errorf("empty input sent back as %v", got)
	}
	r1 := jsonPath(t, body, "messages", 2, "content", 0).(map[string]any)
	if r1["type"] != "tool_result" || r1["tool_use_id"] != "toolu_1" || r1["is_error"] != nil ||
		jsonPath(t, r1, "content", 0, "text") != "module github.com/gantry-dev/gantry" {
		t.Errorf("first tool_result = %v", r1)
	}
	r2 := jsonPath(t, body, "messages", 2, "content", 1).(map[string]any)
	if r2["is_error"] != true || r2["tool_use_id"] != "toolu_2" || jsonPath(t, r2, "cache_control", "type") != "ephemeral" {
		t.Errorf("second tool_result = %v", r2)
	}
}

func TestImages(t *testing.T) {
	p, srv := setup(t)
	png := []byte("\x89PNG\r\n\x1a\nfake")
	msg := llm.Message{Role: llm.RoleUser, Content: []llm.Block{
		{Type: llm.BlockToolResult, ToolCallID: "toolu_1", Text: "screenshot:", Images: []llm.Image{{MediaType: "image/png", Data: png}}},
		{Type: llm.BlockImage, Images: []llm.Image{{MediaType: "image/jpeg", Data: []byte("jpg")}}},
	}}
	if _, err := p.Stream(context.Background(), request(msg), func(llm.Delta) {}); err != nil {
		t.Fatal(err)
	}
	body := srv.Requests()[0].Body
	img := jsonPath(t, body, "messages", 0, "content", 0, "content", 1).(map[string]any)
	if img["type"] != "image" || jsonPath(t, img, "source", "type") != "base64" ||
		jsonPath(t, img, "source", "media_type") != "image/png" ||
		jsonPath(t, img, "source", "data") != base64.StdEncoding.EncodeToString(png) {
		t.Errorf("tool result image = %v", img)
	}
	if got := jsonPath(t, body, "messages", 0, "content", 0, "content", 0, "text"); got != "screenshot:" {
		t.Errorf("tool result text = %v", got)
	}
	if got := jsonPath(t, body, "messages", 0, "content", 1, "source", "media_type"); got != "image/jpeg" {
		t.Errorf("image block = %v", got)
	}
}

func TestUsage(t *testing.T) {
	want := llm.Usage{InputTokens: 1200, OutputTokens: 34, CacheReadTokens: 5000, CacheWriteTokens: 800}
	p, _ := setup(t, fakellm.Turn{Parts: []fakellm.Part{fakellm.Text("ok")}, Usage: want})
	resp, err := p.Stream(context.Background(), request(userText("hi")), func(llm.Delta) {})
	if err != nil {
		t.Fatal(err)
	}
	if resp.Usage != want {
		t.Fatalf("usage = %+v, want %+v", resp.Usage, want)
	}
}

func TestRateLimitThenSuccess(t *testing.T) {
	p, srv := setup(t, fakellm.Turn{Status: 429}, fakellm.Turn{Parts: []fakellm.Part{fakellm.Text("ok now")}})
	var ds deltas
	resp, err := llm.WithRetry(p, llm.RetryPolicy{Sleep: noSleep}).Stream(context.Background(), request(userText("hi")), ds.emit)
	if err != nil {
		t.Fatal(err)
	}
	if _, n := ds.text(llm.DeltaRetry); n != 1 || resp.Message.Text() != "ok now" {
		t.Fatalf("retries %d, response %+v", n, resp)
	}
	if len(srv.Requests()) != 2 || srv.Remaining() != 0 {
		t.Fatalf("%d requests, %d turns left", len(srv.Requests()), srv.Remaining())
	}
}

func TestRetryAfterIsReported(t *testing.T) {
	p, _ := setup(t, fakellm.Turn{Status: 429, RetryAfter: "2"})
	_, err := p.Stream(context.Background(), request(userText("hi")), func(llm.Delta) {})
	var re *llm.RetryableError
	if !errors.As(err, &re) || re.After != 2 || !strings.Contains(err.Error(), "rate_limit_error") {
		t.Fatalf("err = %v (%#v)", err, re)
	}
}

func TestOverloaded(t *testing.T) {
	p, _ := setup(t, fakellm.Turn{Status: 529}, fakellm.Turn{Parts: []fakellm.Part{fakellm.Text("ok")}})
	_, err := p.Stream(context.Background(), request(userText("hi")), func(llm.Delta) {})
	if !llm.IsRetryable(err) || !strings.Contains(err.Error(), "overloaded_error") {
		t.Fatalf("err = %v", err)
	}
	resp, err := p.Stream(context.Background(), request(userText("hi")), func(llm.Delta) {})
	if err != nil || resp.Message.Text() != "ok" {
		t.Fatalf("after overload: %v %+v", err, resp)
	}
}

func TestOverloadedInStream(t *testing.T) {
	p, _ := setup(t,
		fakellm.Turn{Parts: []fakellm.Part{fakellm.Text(answer)}, StreamError: "overloaded_error", CutAfter: 5},
		fakellm.Turn{Parts: []fakellm.Part{fakellm.Text(answer)}})
	var ds deltas
	resp, err := llm.WithRetry(p, llm.RetryPolicy{Sleep: noSleep}).Stream(context.Background(), request(userText("hi")), ds.emit)
	if err != nil {
		t.Fatal(err)
	}
	reason, n := ds.text(llm.DeltaRetry)
	if n != 1 || !strings.Contains(reason, "overloaded_error") || resp.Message.Text() != answer {
		t.Fatalf("retry %q (%d), response %+v", reason, n, resp)
	}
}

func TestCutStreamThenSuccess(t *testing.T) {
	p, _ := setup(t,
		fakellm.Turn{Parts: []fakellm.Part{fakellm.Text(answer)}, CutAfter: 6},
		fakellm.Turn{Parts: []fakellm.Part{fakellm.Text(answer)}})
	var ds deltas
	resp, err := llm.WithRetry(p, llm.RetryPolicy{Sleep: noSleep}).Stream(context.Background(), request(userText("hi")), ds.emit)
	if err != nil {
		t.Fatal(err)
	}
	retry := -1
	for i, d := range ds {
		if d.Type == llm.DeltaRetry {
			retry = i
		}
	}
	if retry < 1 {
		t.Fatalf("no partial deltas before the retry: %+v", ds)
	}
	partial, _ := ds[:retry].text(llm.DeltaText)
	full, _ := ds[retry+1:].text(llm.DeltaText)
	if partial == "" || !strings.HasPrefix(answer, partial) || partial == answer || full != answer {
		t.Fatalf("partial %q, then %q", partial, full)
	}
	if resp.Message.Text() != answer {
		t.Fatalf("response %q", resp.Message.Text())
	}
}

func TestEOFWithoutMessageStopIsRetryable(t *testing.T) {
	// The response ends cleanly, but after message_delta and before message_stop.
	p, _ := setup(t, fakellm.Turn{Parts: []fakellm.Part{fakellm.Text("ok")}, EndAfter: 6})
	_, err := p.Stream(context.Background(), request(userText("hi")), func(llm.Delta) {})
	if !llm.IsRetryable(err) {
		t.Fatalf("err = %v, want retryable", err)
	}
}

func TestBadRequestIsNotRetried(t *testing.T) {
	p, srv := setup(t, fakellm.Turn{Status: 400}, fakellm.Turn{Parts: []fakellm.Part{fakellm.Text("never")}})
	var ds deltas
	_, err := llm.WithRetry(p, llm.RetryPolicy{Sleep: noSleep}).Stream(context.Background(), request(userText("hi")), ds.emit)
	if err == nil || llm.IsRetryable(err) || !strings.Contains(err.Error(), "invalid_request_error") ||
		!strings.Contains(err.Error(), "scripted") {
		t.Fatalf("err = %v", err)
	}
	if len(srv.Requests()) != 1 || len(ds) != 0 {
		t.Fatalf("%d requests, deltas %+v", len(srv.Requests()), ds)
	}
}

func TestCancelMidStream(t *testing.T) {
	p, _ := setup(t, fakellm.Turn{Parts: []fakellm.Part{fakellm.Text(answer)}, StallAfter: 5})
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	start := time.Now()
	_, err := llm.WithRetry(p, llm.RetryPolicy{Sleep: noSleep}).Stream(ctx, request(userText("hi")), func(d llm.Delta) {
		if d.Type == llm.DeltaText {
			cancel()
		}
	})
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("err = %v, want context.Canceled", err)
	}
	if time.Since(start) > 2*time.Second {
		t.Fatalf("returned after %v", time.Since(start))
	}
}

func TestBaseURLFromEnvironment(t *testing.T) {
	srv := fakellm.New(fakellm.Turn{Parts: []fakellm.Part{fakellm.Text("via env")}})
	defer srv.Close()
	tr := &http.Transport{}
	defer tr.CloseIdleConnections()
	t.Setenv("ANTHROPIC_BASE_URL", srv.URL())
	p := New(Options{APIKey: "k", HTTPClient: &http.Client{Transport: tr}})
	resp, err := p.Stream(context.Background(), request(userText("hi")), func(llm.Delta) {})
	if err != nil || resp.Message.Text() != "via env" {
		t.Fatalf("%v %+v", err, resp)
	}
}

func TestEmptyTextIsNotSent(t *testing.T) {
	p, srv := setup(t)
	msg := llm.Message{Role: llm.RoleUser, Content: []llm.Block{
		{Type: llm.BlockToolResult, ToolCallID: "toolu_1"},
		{Type: llm.BlockText, Text: ""},
	}}
	if _, err := p.Stream(context.Background(), request(msg), func(llm.Delta) {}); err != nil {
		t.Fatal(err)
	}
	content := jsonPath(t, srv.Requests()[0].Body, "messages", 0, "content").([]any)
	if len(content) != 1 {
		t.Fatalf("content = %v", content)
	}
	if _, ok := content[0].(map[string]any)["content"]; ok {
		t.Errorf("empty tool result has content: %v", content[0])
	}
}

// A local server named by ANTHROPIC_BASE_URL works without a key.
func TestBaseURLWithoutAKey(t *testing.T) {
	srv := fakellm.New(fakellm.Turn{Parts: []fakellm.Part{fakellm.Text("no key needed")}})
	defer srv.Close()
	tr := &http.Transport{}
	defer tr.CloseIdleConnections()
	t.Setenv("ANTHROPIC_BASE_URL", srv.URL())
	t.Setenv("ANTHROPIC_API_KEY", "")
	t.Setenv("ANTHROPIC_AUTH_TOKEN", "")
	p := New(Options{HTTPClient: &http.Client{Transport: tr}})
	resp, err := p.Stream(context.Background(), request(userText("hi")), func(llm.Delta) {})
	if err != nil || resp.Message.Text() != "no key needed" {
		t.Fatalf("%v %+v", err, resp)
	}
}

// Errors that cannot succeed on a second try are not retryable: an unknown host, and
// the API's 400, 401, 403 and 404.
func TestHopelessErrorsAreNotRetried(t *testing.T) {
	// The resolver's answer for a host that does not exist, without asking one.
	tr := &http.Transport{DialContext: func(_ context.Context, _, addr string) (net.Conn, error) {
		host, _, _ := net.SplitHostPort(addr)
		return nil, &net.OpError{Op: "dial", Net: "tcp", Err: &net.DNSError{Err: "no such host", Name: host, IsNotFound: true}}
	}}
	defer tr.CloseIdleConnections()
	p := New(Options{APIKey: "k", BaseURL: "http://no-such-host.invalid", HTTPClient: &http.Client{Transport: tr}})
	_, err := p.Stream(context.Background(), request(userText("hi")), func(llm.Delta) {})
	if err == nil || llm.IsRetryable(err) || !strings.Contains(err.Error(), "no-such-host.invalid is unknown") {
		t.Fatalf("unknown host: %v (retryable %v)", err, llm.IsRetryable(err))
	}
	for _, status := range []int{400, 401, 403, 404} {
		p, srv := setup(t, fakellm.Turn{Status: status})
		_, err := p.Stream(context.Background(), request(userText("hi")), func(llm.Delta) {})
		if err == nil || llm.IsRetryable(err) {
			t.Errorf("HTTP %d: %v is retryable", status, err)
		}
		srv.Close()
	}
}
