package fakellm

import (
	"bufio"
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/gantry-dev/gantry/internal/llm"
)

// post sends body to path and returns the response; the caller closes its body.
func post(t *testing.T, c *http.Client, url, body string) *http.Response {
	t.Helper()
	resp, err := c.Post(url, "application/json", strings.NewReader(body))
	if err != nil {
		t.Fatalf("POST %s: %v", url, err)
	}
	return resp
}

func client(t *testing.T) *http.Client {
	tr := &http.Transport{}
	t.Cleanup(tr.CloseIdleConnections)
	return &http.Client{Transport: tr}
}

func readAll(t *testing.T, resp *http.Response) string {
	t.Helper()
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatalf("reading body: %v", err)
	}
	return string(b)
}

func TestServesAllPathsAndRecords(t *testing.T) {
	srv := New()
	defer srv.Close()
	c := client(t)
	for _, path := range []string{"/v1/messages", "/messages", "/v1/responses", "/responses", "/v1/chat/completions", "/chat/completions"} {
		resp := post(t, c, srv.URL()+path, `{"model":"m","stream":true}`)
		body := readAll(t, resp)
		if resp.StatusCode != 200 || !strings.Contains(body, "exhausted") {
			t.Errorf("%s: %d %s", path, resp.StatusCode, body)
		}
	}
	reqs := srv.Requests()
	if len(reqs) != 6 || reqs[1].Path != "/messages" || reqs[0].Body["model"] != "m" || reqs[0].Method != "POST" ||
		reqs[0].Header.Get("Content-Type") != "application/json" || string(reqs[0].Raw) != `{"model":"m","stream":true}` {
		t.Fatalf("recorded %+v", reqs)
	}
	resp := post(t, c, srv.URL()+"/v1/embeddings", `{}`)
	if readAll(t, resp); resp.StatusCode != 404 || len(srv.Requests()) != 6 {
		t.Errorf("unknown path: %d", resp.StatusCode)
	}
}

func TestAnthropicWireFormat(t *testing.T) {
	srv := New(Turn{Parts: []Part{Thinking("hmm"), Text("one two three four five"), ToolCall("toolu_1", "read", `{"path":"a.go"}`)},
		Usage: llm.Usage{InputTokens: 10, OutputTokens: 5, CacheReadTokens: 3}})
	defer srv.Close()
	resp := post(t, client(t), srv.URL()+"/v1/messages", `{"model":"claude-x","stream":true}`)
	if ct := resp.Header.Get("Content-Type"); !strings.HasPrefix(ct, "text/event-stream") {
		t.Fatalf("content type %q", ct)
	}
	body := readAll(t, resp)
	for _, want := range []string{
		"event: message_start", `"model":"claude-x"`, `"cache_read_input_tokens":3`,
		`"type":"thinking_delta"`, `"type":"signature_delta"`,
		`"text":"one two three "`, `"text":"four five"`,
		`"type":"tool_use"`, `"type":"input_json_delta"`, "event: content_block_stop",
		`"stop_reason":"tool_use"`, `"output_tokens":5`, "event: message_stop",
	} {
		if !strings.Contains(body, want) {
			t.Errorf("stream lacks %s:\n%s", want, body)
		}
	}
}

func TestResponsesWireFormat(t *testing.T) {
	srv := New(Turn{Parts: []Part{Text("hi there"), ToolCall("call_9", "ls", "")}})
	defer srv.Close()
	body := readAll(t, post(t, client(t), srv.URL()+"/v1/responses", `{"model":"gpt-x","stream":true}`))
	order := []string{"event: response.created", "event: response.output_text.delta", "event: response.output_item.done",
		"event: response.function_call_arguments.delta", "event: response.function_call_arguments.done", `"call_id":"call_9"`,
		"event: response.completed", `"input_tokens_details"`}
	at := 0
	for _, want := range order {
		i := strings.Index(body[at:], want)
		if i < 0 {
			t.Fatalf("missing %q after offset %d:\n%s", want, at, body)
		}
		at += i
	}
}

func TestChatWireFormat(t *testing.T) {
	srv := New(Turn{Parts: []Part{Text("hi"), ToolCall("call_1", "ls", `{}`)}}, Turn{Parts: []Part{Text("x")}})
	defer srv.Close()
	c := client(t)
	body := readAll(t, post(t, c, srv.URL()+"/v1/chat/completions", `{"model":"m","stream":true,"stream_options":{"include_usage":true}}`))
	for _, want := range []string{`"object":"chat.completion.chunk"`, `"tool_calls":[{`, `"finish_reason":"tool_calls"`, `"prompt_tokens"`} {
		if !strings.Contains(body, want) {
			t.Errorf("stream lacks %s:\n%s", want, body)
		}
	}
	if !strings.HasSuffix(body, "data: [DONE]\n\n") {
		t.Errorf("stream does not end with [DONE]:\n%s", body)
	}
	// Without include_usage there is no usage chunk.
	if body := readAll(t, post(t, c, srv.URL()+"/chat/completions", `{"model":"m","stream":true}`)); strings.Contains(body, "prompt_tokens") {
		t.Errorf("usage chunk without include_usage:\n%s", body)
	}
}

func TestStatusFaultsConsumeTurns(t *testing.T) {
	srv := New(Turn{Status: 429}, Turn{Status: 529, RetryAfter: "2"})
	defer srv.Close()
	srv.Append(Turn{Status: 500}, Turn{Parts: []Part{Text("fine")}})
	c := client(t)
	resp := post(t, c, srv.URL()+"/v1/messages", `{"stream":true}`)
	if body := readAll(t, resp); resp.StatusCode != 429 || resp.Header.Get("Retry-After") != "0" || !strings.Contains(body, `"rate_limit_error"`) {
		t.Errorf("429: %v %s", resp.Header, body)
	}
	resp = post(t, c, srv.URL()+"/v1/messages", `{"stream":true}`)
	if body := readAll(t, resp); resp.StatusCode != 529 || resp.Header.Get("Retry-After") != "2" || !strings.Contains(body, `"overloaded_error"`) {
		t.Errorf("529: %v %s", resp.Header, body)
	}
	resp = post(t, c, srv.URL()+"/v1/chat/completions", `{"stream":true}`)
	if body := readAll(t, resp); resp.StatusCode != 500 || !strings.Contains(body, `"server_error"`) {
		t.Errorf("500: %s", body)
	}
	if body := readAll(t, post(t, c, srv.URL()+"/v1/responses", `{"stream":true}`)); !strings.Contains(body, "fine") || srv.Remaining() != 0 {
		t.Errorf("success: %s", body)
	}
}

func TestCutDropsTheConnection(t *testing.T) {
	srv := New(Turn{Parts: []Part{Text("a b c d e f g h i j k l")}, CutAfter: 3})
	defer srv.Close()
	resp := post(t, client(t), srv.URL()+"/v1/messages", `{"stream":true}`)
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err == nil {
		t.Fatalf("read the whole body without error:\n%s", b)
	}
	if n := strings.Count(string(b), "\n\n"); n != 3 {
		t.Errorf("got %d events before the cut:\n%s", n, b)
	}
}

func TestEventsAreFlushedOneByOne(t *testing.T) {
	srv := New(Turn{Parts: []Part{Text("hello")}, StallAfter: 1})
	defer srv.Close()
	resp := post(t, client(t), srv.URL()+"/v1/messages", `{"stream":true}`)
	defer resp.Body.Close()
	got := make(chan string, 1)
	go func() {
		line, _ := bufio.NewReader(resp.Body).ReadString('\n')
		got <- line
	}()
	select {
	case line := <-got:
		if line != "event: message_start\n" {
			t.Fatalf("first line %q", line)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("the first event was not flushed")
	}
	// Close ends the stalled response.
	srv.Close()
}

func TestStalledTellsWhenAResponseStalls(t *testing.T) {
	srv := New(Turn{Parts: []Part{Text("one two three four five six")}, StallAfter: 3})
	defer srv.Close()
	first, second := srv.Stalled(1), srv.Stalled(2)
	select {
	case <-srv.Stalled(0):
	default:
		t.Error("Stalled(0) is not closed")
	}
	select {
	case <-first:
		t.Fatal("Stalled(1) is closed before any request")
	default:
	}
	resp := post(t, client(t), srv.URL()+"/v1/messages", `{"stream":true}`)
	defer resp.Body.Close()
	select {
	case <-first:
	case <-time.After(10 * time.Second):
		t.Fatal("Stalled(1) was not closed when the response stalled")
	}
	// What was sent before the stall is flushed: the client reads its three events.
	r := bufio.NewReader(resp.Body)
	for events := 0; events < 3; {
		line, err := r.ReadString('\n')
		if err != nil {
			t.Fatalf("after %d events: %v", events, err)
		}
		if line == "\n" {
			events++
		}
	}
	select {
	case <-second:
		t.Fatal("Stalled(2) is closed after one stall")
	default:
	}
	if c := srv.Stalled(1); c != first {
		t.Error("Stalled(1) gives a different channel the second time")
	}
}

func TestStreamErrorEvent(t *testing.T) {
	srv := New(Turn{Parts: []Part{Text("a b c")}, StreamError: "overloaded_error", CutAfter: 2})
	defer srv.Close()
	body := readAll(t, post(t, client(t), srv.URL()+"/v1/messages", `{"stream":true}`))
	if !strings.Contains(body, "event: error\ndata: ") || !strings.Contains(body, `"overloaded_error"`) || strings.Contains(body, "message_stop") {
		t.Fatalf("body:\n%s", body)
	}
}

func TestLoadScript(t *testing.T) {
	turns, err := LoadScript(strings.NewReader(`{"turns": [
		{"parts": [{"thinking": "hm"}, {"text": "Let me look."},
		           {"tool_call": {"id": "call_1", "name": "read", "input": {"path": "go.mod"}}},
		           {"tool_call": {"id": "call_2", "name": "ls"}}]},
		{"status": 429, "retry_after": "1"},
		{"parts": [{"text": "done"}], "cut_after": 4, "end_after": 2, "stall_after": 3, "delay_ms": 5,
		 "stream_error": "server_error", "stop_reason": "max_tokens",
		 "usage": {"input_tokens": 9, "output_tokens": 2, "cache_read_tokens": 7, "cache_write_tokens": 1}},
		{"parts": [{"endless_text": "more "}], "pings_after": 2, "malformed": "{\"type\": x}"}
	]}`))
	if err != nil {
		t.Fatal(err)
	}
	want := []Turn{
		{Parts: []Part{Thinking("hm"), Text("Let me look."), ToolCall("call_1", "read", `{"path":"go.mod"}`), ToolCall("call_2", "ls", "")}},
		{Status: 429, RetryAfter: "1"},
		{Parts: []Part{Text("done")}, CutAfter: 4, EndAfter: 2, StallAfter: 3, Delay: 5 * time.Millisecond,
			StreamError: "server_error", StopReason: "max_tokens", Usage: llm.Usage{InputTokens: 9, OutputTokens: 2, CacheReadTokens: 7, CacheWriteTokens: 1}},
		{Parts: []Part{EndlessText("more ")}, PingsAfter: 2, Malformed: `{"type": x}`},
	}
	g, _ := json.Marshal(turns)
	w, _ := json.Marshal(want)
	if string(g) != string(w) {
		t.Fatalf("got  %s\nwant %s", g, w)
	}
}

func TestLoadScriptErrors(t *testing.T) {
	for _, bad := range []string{
		`{"turns": [{"parts": [{}]}]}`,
		`{"turns": [{"parts": [{"text": "a", "thinking": "b"}]}]}`,
		`{"turns": [{"parts": [{"tool_call": {"id": "x"}}]}]}`,
		`{"turns": [{"colour": 1}]}`,
		`[1, 2]`,
	} {
		if _, err := LoadScript(strings.NewReader(bad)); err == nil {
			t.Errorf("LoadScript(%s) succeeded", bad)
		}
	}
}

func TestChunking(t *testing.T) {
	text := "The quick brown fox jumps over the lazy dog"
	chunks := words(text)
	if strings.Join(chunks, "") != text || len(chunks) != 3 {
		t.Errorf("words = %q", chunks)
	}
	s := `{"note":"ééééééé"}`
	ps := pieces(s, 5)
	if strings.Join(ps, "") != s || len(ps) < 3 {
		t.Errorf("pieces = %q", ps)
	}
	for _, p := range ps {
		if !json.Valid([]byte(`"`+strings.ReplaceAll(p, `"`, `\"`)+`"`)) || strings.ToValidUTF8(p, "?") != p {
			t.Errorf("piece %q splits a character", p)
		}
	}
}

func TestNonStreamingRequestIsRefused(t *testing.T) {
	srv := New(Turn{Parts: []Part{Text("kept")}})
	defer srv.Close()
	resp := post(t, client(t), srv.URL()+"/v1/messages", `{"model":"m"}`)
	body := readAll(t, resp)
	if resp.StatusCode != 400 || !strings.Contains(body, "streaming") || srv.Remaining() != 1 || len(srv.Requests()) != 1 {
		t.Fatalf("status %d, body %s, remaining %d", resp.StatusCode, body, srv.Remaining())
	}
}
