package openai

import (
	"context"
	"errors"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/gantry-dev/gantry/internal/llm"
	"github.com/gantry-dev/gantry/internal/llm/fakellm"
)

func TestChatText(t *testing.T) {
	p, srv := setup(t, NewChat, fakellm.Turn{Parts: []fakellm.Part{fakellm.Text(answer)}})
	var ds deltas
	req := request("llama3.1:8b", userText("What is the module?"))
	req.MaxTokens = 2000
	resp, err := p.Stream(context.Background(), req, ds.emit)
	if err != nil {
		t.Fatalf("Stream: %v", err)
	}
	if text, n := ds.text(llm.DeltaText); text != answer || n < 3 {
		t.Fatalf("streamed %q in %d deltas", text, n)
	}
	if resp.Message.Text() != answer || resp.StopReason != "end_turn" || p.Name() != "openai-chat" {
		t.Fatalf("response = %+v", resp)
	}
	r := srv.Requests()[0]
	if r.Path != "/v1/chat/completions" || r.Header.Get("Authorization") != "Bearer test-key" {
		t.Fatalf("request %s with headers %v", r.Path, r.Header)
	}
	if r.Body["stream"] != true || jsonPath(t, r.Body, "stream_options", "include_usage") != true ||
		r.Body["max_completion_tokens"] != float64(2000) {
		t.Errorf("body = %v", r.Body)
	}
	sys := jsonPath(t, r.Body, "messages", 0).(map[string]any)
	user := jsonPath(t, r.Body, "messages", 1).(map[string]any)
	if sys["role"] != "system" || sys["content"] != "You are gantry." || user["role"] != "user" || user["content"] != "What is the module?" {
		t.Errorf("messages = %v", r.Body["messages"])
	}
}

func TestChatReasoningContent(t *testing.T) {
	thought := "The user asks for the module name, which go.mod declares."
	p, srv := setup(t, NewChat, fakellm.Turn{Parts: []fakellm.Part{fakellm.Thinking(thought), fakellm.Text("gantry")}})
	var ds deltas
	resp, err := p.Stream(context.Background(), request("deepseek-r1", userText("module?")), ds.emit)
	if err != nil {
		t.Fatal(err)
	}
	if got, n := ds.text(llm.DeltaThinking); got != thought || n < 2 {
		t.Fatalf("thinking deltas %q (%d)", got, n)
	}
	if b := resp.Message.Content[0]; b.Type != llm.BlockThinking || b.Text != thought || resp.Message.Text() != "gantry" {
		t.Fatalf("message = %+v", resp.Message)
	}
	// Thinking is not sent back.
	if _, err := p.Stream(context.Background(), request("deepseek-r1", userText("module?"), resp.Message, userText("ok")), func(llm.Delta) {}); err != nil {
		t.Fatal(err)
	}
	if got := jsonPath(t, srv.Requests()[1].Body, "messages", 2); got.(map[string]any)["content"] != "gantry" {
		t.Errorf("assistant sent back as %v", got)
	}
}

func TestChatToolCallRoundTrip(t *testing.T) {
	p, srv := setup(t, NewChat, toolTurn, fakellm.Turn{Parts: []fakellm.Part{fakellm.Text("It is gantry.")}})
	req := request("gpt-4.1", userText("module?"))
	req.Tools = []llm.ToolSpec{readTool}
	var ds deltas
	resp, err := p.Stream(context.Background(), req, ds.emit)
	if err != nil {
		t.Fatal(err)
	}
	calls := ds.toolCalls()
	if len(calls) != 2 || calls[0].ToolName != "read" || calls[0].ToolCallID != "call_1" ||
		string(calls[0].Input) != `{"path":"go.mod","note":"héllo wörld"}` || calls[1].ToolName != "ls" || string(calls[1].Input) != "{}" {
		t.Fatalf("tool call deltas = %+v", calls)
	}
	if resp.StopReason != "tool_use" || len(resp.Message.ToolCalls()) != 2 || resp.Message.Text() != "Let me look." {
		t.Fatalf("response = %+v", resp)
	}
	req.Messages = append(req.Messages, resp.Message, toolResults)
	if _, err := p.Stream(context.Background(), req, func(llm.Delta) {}); err != nil {
		t.Fatal(err)
	}
	body := srv.Requests()[1].Body
	fn := jsonPath(t, body, "tools", 0, "function").(map[string]any)
	if fn["name"] != "read" || fn["description"] != "Read a file." || jsonPath(t, fn, "parameters", "required", 0) != "path" {
		t.Errorf("tool = %v", fn)
	}
	asst := jsonPath(t, body, "messages", 2).(map[string]any)
	if asst["role"] != "assistant" || asst["content"] != "Let me look." ||
		jsonPath(t, asst, "tool_calls", 0, "id") != "call_1" ||
		jsonPath(t, asst, "tool_calls", 0, "function", "arguments") != `{"path":"go.mod","note":"héllo wörld"}` ||
		jsonPath(t, asst, "tool_calls", 1, "function", "arguments") != "{}" {
		t.Errorf("assistant = %v", asst)
	}
	t1 := jsonPath(t, body, "messages", 3).(map[string]any)
	t2 := jsonPath(t, body, "messages", 4).(map[string]any)
	if t1["role"] != "tool" || t1["tool_call_id"] != "call_1" || t1["content"] != "module github.com/gantry-dev/gantry" ||
		t2["tool_call_id"] != "call_2" || t2["content"] != "Error: ls: permission denied" {
		t.Errorf("tool messages = %v, %v", t1, t2)
	}
}

func TestChatImagesInToolResults(t *testing.T) {
	p, srv := setup(t, NewChat)
	prior := llm.Message{Role: llm.RoleAssistant, Content: []llm.Block{
		{Type: llm.BlockToolUse, ToolCallID: "call_1", ToolName: "read", Input: []byte(`{"path":"a"}`)},
		{Type: llm.BlockToolUse, ToolCallID: "call_2", ToolName: "ls"},
	}}
	if _, err := p.Stream(context.Background(), request("gpt-4o", userText("look"), prior, toolResults), func(llm.Delta) {}); err != nil {
		t.Fatal(err)
	}
	msgs := srv.Requests()[0].Body["messages"].([]any)
	if len(msgs) != 6 {
		t.Fatalf("messages = %v", msgs)
	}
	follow := msgs[5].(map[string]any)
	if follow["role"] != "user" || !strings.Contains(jsonPath(t, follow, "content", 0, "text").(string), "call_2") ||
		jsonPath(t, follow, "content", 1, "type") != "image_url" || jsonPath(t, follow, "content", 1, "image_url", "url") != pngURL ||
		jsonPath(t, follow, "content", 2, "text") != "Also, hurry." {
		t.Errorf("follow-up user message = %v", follow)
	}
}

func TestChatUsage(t *testing.T) {
	want := llm.Usage{InputTokens: 1200, OutputTokens: 34, CacheReadTokens: 5000}
	p, _ := setup(t, NewChat, fakellm.Turn{Parts: []fakellm.Part{fakellm.Text("ok")}, Usage: want})
	resp, err := p.Stream(context.Background(), request("gpt-4o", userText("hi")), func(llm.Delta) {})
	if err != nil {
		t.Fatal(err)
	}
	if resp.Usage != want {
		t.Fatalf("usage = %+v, want %+v", resp.Usage, want)
	}
}

func TestChatRateLimitThenSuccess(t *testing.T) {
	p, srv := setup(t, NewChat, fakellm.Turn{Status: 429}, fakellm.Turn{Parts: []fakellm.Part{fakellm.Text("ok now")}})
	var ds deltas
	resp, err := llm.WithRetry(p, llm.RetryPolicy{Sleep: noSleep}).Stream(context.Background(), request("gpt-4o", userText("hi")), ds.emit)
	if err != nil {
		t.Fatal(err)
	}
	if reason, n := ds.text(llm.DeltaRetry); n != 1 || !strings.Contains(reason, "rate_limit_exceeded") || resp.Message.Text() != "ok now" {
		t.Fatalf("retry %q (%d), response %+v", reason, n, resp)
	}
	if len(srv.Requests()) != 2 || srv.Remaining() != 0 {
		t.Fatalf("%d requests, %d turns left", len(srv.Requests()), srv.Remaining())
	}
}

func TestChatServerErrors(t *testing.T) {
	p, _ := setup(t, NewChat,
		fakellm.Turn{Status: 503},
		fakellm.Turn{Parts: []fakellm.Part{fakellm.Text(answer)}, StreamError: "server_error", CutAfter: 3})
	for i := 0; i < 2; i++ {
		_, err := p.Stream(context.Background(), request("gpt-4o", userText("hi")), func(llm.Delta) {})
		if !llm.IsRetryable(err) {
			t.Fatalf("attempt %d: err = %v, want retryable", i, err)
		}
	}
}

func TestChatCutStreamThenSuccess(t *testing.T) {
	p, _ := setup(t, NewChat,
		fakellm.Turn{Parts: []fakellm.Part{fakellm.Text(answer)}, CutAfter: 4},
		fakellm.Turn{Parts: []fakellm.Part{fakellm.Text(answer)}})
	var ds deltas
	resp, err := llm.WithRetry(p, llm.RetryPolicy{Sleep: noSleep}).Stream(context.Background(), request("gpt-4o", userText("hi")), ds.emit)
	if err != nil {
		t.Fatal(err)
	}
	at := ds.retryIndex()
	if at < 1 {
		t.Fatalf("no partial deltas before a retry: %+v", ds)
	}
	partial, _ := ds[:at].text(llm.DeltaText)
	full, _ := ds[at+1:].text(llm.DeltaText)
	if partial == "" || partial == answer || !strings.HasPrefix(answer, partial) || full != answer || resp.Message.Text() != answer {
		t.Fatalf("partial %q, then %q", partial, full)
	}
}

func TestChatEndWithoutDoneIsRetryable(t *testing.T) {
	// Role chunk, text, finish_reason, usage: everything but data: [DONE].
	p, _ := setup(t, NewChat, fakellm.Turn{Parts: []fakellm.Part{fakellm.Text("ok")}, EndAfter: 4})
	_, err := p.Stream(context.Background(), request("gpt-4o", userText("hi")), func(llm.Delta) {})
	if !llm.IsRetryable(err) || !strings.Contains(err.Error(), "[DONE]") {
		t.Fatalf("err = %v", err)
	}
}

func TestChatBadRequestIsNotRetried(t *testing.T) {
	p, srv := setup(t, NewChat, fakellm.Turn{Status: 400}, fakellm.Turn{Parts: []fakellm.Part{fakellm.Text("never")}})
	_, err := llm.WithRetry(p, llm.RetryPolicy{Sleep: noSleep}).Stream(context.Background(), request("gpt-4o", userText("hi")), func(llm.Delta) {})
	if err == nil || llm.IsRetryable(err) || !strings.Contains(err.Error(), "invalid_request_error") {
		t.Fatalf("err = %v", err)
	}
	if len(srv.Requests()) != 1 {
		t.Fatalf("%d requests", len(srv.Requests()))
	}
}

func TestChatCancelMidStream(t *testing.T) {
	p, _ := setup(t, NewChat, fakellm.Turn{Parts: []fakellm.Part{fakellm.Text(answer)}, StallAfter: 3})
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	start := time.Now()
	_, err := llm.WithRetry(p, llm.RetryPolicy{Sleep: noSleep}).Stream(ctx, request("gpt-4o", userText("hi")), func(d llm.Delta) {
		if d.Type == llm.DeltaText {
			cancel()
		}
	})
	if !errors.Is(err, context.Canceled) || time.Since(start) > 2*time.Second {
		t.Fatalf("err = %v after %v", err, time.Since(start))
	}
}

func TestChatBaseURLFromEnvironment(t *testing.T) {
	srv := fakellm.New(fakellm.Turn{Parts: []fakellm.Part{fakellm.Text("via env")}})
	defer srv.Close()
	tr := &http.Transport{}
	defer tr.CloseIdleConnections()
	t.Setenv("OPENAI_BASE_URL", srv.URL()+"/v1")
	p := NewChat(Options{APIKey: "k", HTTPClient: &http.Client{Transport: tr}})
	resp, err := p.Stream(context.Background(), request("qwen3", userText("hi")), func(llm.Delta) {})
	if err != nil || resp.Message.Text() != "via env" {
		t.Fatalf("%v %+v", err, resp)
	}
}
