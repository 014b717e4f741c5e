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

func TestResponsesText(t *testing.T) {
	p, srv := setup(t, NewResponses, fakellm.Turn{Parts: []fakellm.Part{fakellm.Text(answer)}})
	var ds deltas
	req := request("gpt-5", userText("What is the module?"))
	req.MaxTokens = 2000
	resp, err := p.Stream(context.Background(), req, ds.emit)
	if err != nil {
		t.Fatalf("Stream: %v", err)
	}
	if text, n := ds.text(llm.DeltaText); text != answer || n < 3 {
		t.Fatalf("streamed %q in %d deltas", text, n)
	}
	if resp.Message.Text() != answer || resp.StopReason != "end_turn" || p.Name() != "openai" {
		t.Fatalf("response = %+v", resp)
	}
	r := srv.Requests()[0]
	if r.Path != "/v1/responses" || r.Header.Get("Authorization") != "Bearer test-key" {
		t.Fatalf("request %s with headers %v", r.Path, r.Header)
	}
	if r.Body["stream"] != true || r.Body["instructions"] != "You are gantry." ||
		r.Body["model"] != "gpt-5" || r.Body["max_output_tokens"] != float64(2000) {
		t.Errorf("body = %v", r.Body)
	}
	if got := jsonPath(t, r.Body, "input", 0, "content", 0); got.(map[string]any)["type"] != "input_text" {
		t.Errorf("input = %v", r.Body["input"])
	}
}

func TestResponsesPathWithoutV1(t *testing.T) {
	srv := fakellm.New(fakellm.Turn{Parts: []fakellm.Part{fakellm.Text("ok")}})
	defer srv.Close()
	tr := &http.Transport{}
	defer tr.CloseIdleConnections()
	p := NewResponses(Options{APIKey: "k", BaseURL: srv.URL(), HTTPClient: &http.Client{Transport: tr}})
	resp, err := p.Stream(context.Background(), request("gpt-5", userText("hi")), func(llm.Delta) {})
	if err != nil || resp.Message.Text() != "ok" || srv.Requests()[0].Path != "/responses" {
		t.Fatalf("%v %+v %s", err, resp, srv.Requests()[0].Path)
	}
}

func TestResponsesThinking(t *testing.T) {
	thought := "The user asks for the module name, which go.mod declares."
	p, srv := setup(t, NewResponses, fakellm.Turn{Parts: []fakellm.Part{fakellm.Thinking(thought), fakellm.Text("gantry")}})
	var ds deltas
	resp, err := p.Stream(context.Background(), request("o4-mini", userText("module?")), ds.emit)
	if err != nil {
		t.Fatal(err)
	}
	if got, n := ds.text(llm.DeltaThinking); got != thought || n < 2 {
		t.Fatalf("thinking deltas %q (%d)", got, n)
	}
	b := resp.Message.Content[0]
	if b.Type != llm.BlockThinking || b.Text != thought || !strings.HasPrefix(b.Signature, "openai:") {
		t.Fatalf("thinking block = %+v", b)
	}
	// The reasoning item goes back with its id and encrypted content.
	req := request("o4-mini", userText("module?"), resp.Message, userText("thanks"))
	if _, err := p.Stream(context.Background(), req, func(llm.Delta) {}); err != nil {
		t.Fatal(err)
	}
	item := jsonPath(t, srv.Requests()[1].Body, "input", 1).(map[string]any)
	if item["type"] != "reasoning" || !strings.HasPrefix(item["id"].(string), "rs_") ||
		item["encrypted_content"] == nil || jsonPath(t, item, "summary", 0, "text") != thought {
		t.Errorf("reasoning item sent back as %v", item)
	}
	if got := jsonPath(t, srv.Requests()[1].Body, "input", 2); got.(map[string]any)["role"] != "assistant" {
		t.Errorf("assistant text sent as %v", got)
	}
}

func TestResponsesToolCallRoundTrip(t *testing.T) {
	p, srv := setup(t, NewResponses, toolTurn, fakellm.Turn{Parts: []fakellm.Part{fakellm.Text("It is gantry.")}})
	req := request("gpt-5", userText("module?"))
	req.Tools = []llm.ToolSpec{readTool}
	var ds deltas
	resp, err := p.Stream(context.Background(), req, ds.emit)
	if err != nil {
		t.Fatal(err)
	}
	calls := ds.toolCalls()
	if len(calls) != 2 || calls[0].ToolName != "read" || calls[0].ToolCallID != "call_1" ||
		string(calls[0].Input) != `{"path":"go.mod","note":"héllo wörld"}` || string(calls[1].Input) != "{}" {
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
	tool := jsonPath(t, body, "tools", 0).(map[string]any)
	if tool["type"] != "function" || tool["name"] != "read" || jsonPath(t, tool, "parameters", "required", 0) != "path" {
		t.Errorf("tool = %v", tool)
	}
	fc := jsonPath(t, body, "input", 2).(map[string]any)
	if fc["type"] != "function_call" || fc["call_id"] != "call_1" || fc["name"] != "read" ||
		fc["arguments"] != `{"path":"go.mod","note":"héllo wörld"}` {
		t.Errorf("function_call = %v", fc)
	}
	if got := jsonPath(t, body, "input", 3, "arguments"); got != "{}" {
		t.Errorf("empty arguments sent as %v", got)
	}
	out := jsonPath(t, body, "input", 4).(map[string]any)
	if out["type"] != "function_call_output" || out["call_id"] != "call_1" || out["output"] != "module github.com/gantry-dev/gantry" {
		t.Errorf("function_call_output = %v", out)
	}
	if got := jsonPath(t, body, "input", 6, "content", 0, "text"); got != "Also, hurry." {
		t.Errorf("user text after the results = %v", got)
	}
}

func TestResponsesImagesInToolResults(t *testing.T) {
	p, srv := setup(t, NewResponses)
	prior := llm.Message{Role: llm.RoleAssistant, Content: []llm.Block{
		{Type: llm.BlockToolUse, ToolCallID: "call_1", ToolName: "read", Input: []byte(`{"path":"a"}`)},
		{Type: llm.BlockToolUse, ToolCallID: "call_2", ToolName: "ls"},
	}}
	img := llm.Message{Role: llm.RoleUser, Content: []llm.Block{{Type: llm.BlockImage, Images: []llm.Image{{MediaType: "image/jpeg", Data: []byte("jpg")}}}}}
	if _, err := p.Stream(context.Background(), request("gpt-5", img, prior, toolResults), func(llm.Delta) {}); err != nil {
		t.Fatal(err)
	}
	body := srv.Requests()[0].Body
	if got := jsonPath(t, body, "input", 0, "content", 0); got.(map[string]any)["type"] != "input_image" ||
		got.(map[string]any)["image_url"] != "data:image/jpeg;base64,anBn" {
		t.Errorf("image block = %v", got)
	}
	out := jsonPath(t, body, "input", 4).(map[string]any)
	if out["call_id"] != "call_2" || jsonPath(t, out, "output", 0, "text") != "Error: ls: permission denied" {
		t.Errorf("failed result = %v", out)
	}
	if im := jsonPath(t, out, "output", 1).(map[string]any); im["type"] != "input_image" || im["image_url"] != pngURL {
		t.Errorf("result image = %v", im)
	}
}

func TestResponsesUsage(t *testing.T) {
	want := llm.Usage{InputTokens: 1200, OutputTokens: 34, CacheReadTokens: 5000}
	p, _ := setup(t, NewResponses, fakellm.Turn{Parts: []fakellm.Part{fakellm.Text("ok")}, Usage: want})
	resp, err := p.Stream(context.Background(), request("gpt-5", userText("hi")), func(llm.Delta) {})
	if err != nil {
		t.Fatal(err)
	}
	if resp.Usage != want {
		t.Fatalf("usage = %+v, want %+v", resp.Usage, want)
	}
}

func TestResponsesMaxTokens(t *testing.T) {
	p, _ := setup(t, NewResponses, fakellm.Turn{Parts: []fakellm.Part{fakellm.Text("cut sho")}, StopReason: "max_tokens"})
	resp, err := p.Stream(context.Background(), request("gpt-5", userText("hi")), func(llm.Delta) {})
	if err != nil || resp.StopReason != "max_tokens" || resp.Message.Text() != "cut sho" {
		t.Fatalf("%v %+v", err, resp)
	}
}

func TestResponsesRateLimitThenSuccess(t *testing.T) {
	p, srv := setup(t, NewResponses, fakellm.Turn{Status: 429, RetryAfter: "3"}, fakellm.Turn{Parts: []fakellm.Part{fakellm.Text("ok now")}})
	var ds deltas
	var waited []time.Duration
	sleep := func(_ context.Context, d time.Duration) error { waited = append(waited, d); return nil }
	resp, err := llm.WithRetry(p, llm.RetryPolicy{Sleep: sleep}).Stream(context.Background(), request("gpt-5", userText("hi")), ds.emit)
	if err != nil {
		t.Fatal(err)
	}
	if reason, n := ds.text(llm.DeltaRetry); n != 1 || !strings.Contains(reason, "429") || resp.Message.Text() != "ok now" {
		t.Fatalf("retry %q (%d), response %+v", reason, n, resp)
	}
	if len(srv.Requests()) != 2 || srv.Remaining() != 0 || len(waited) != 1 || waited[0] != 3*time.Second {
		t.Fatalf("%d requests, %d turns left, waits %v", len(srv.Requests()), srv.Remaining(), waited)
	}
}

func TestResponsesServerErrorInStream(t *testing.T) {
	p, _ := setup(t, NewResponses, fakellm.Turn{Parts: []fakellm.Part{fakellm.Text(answer)}, StreamError: "server_error", CutAfter: 4})
	_, err := p.Stream(context.Background(), request("gpt-5", userText("hi")), func(llm.Delta) {})
	if !llm.IsRetryable(err) || !strings.Contains(err.Error(), "server_error") {
		t.Fatalf("err = %v", err)
	}
}

func TestResponsesCutStreamThenSuccess(t *testing.T) {
	p, _ := setup(t, NewResponses,
		fakellm.Turn{Parts: []fakellm.Part{fakellm.Text(answer)}, CutAfter: 7},
		fakellm.Turn{Parts: []fakellm.Part{fakellm.Text(answer)}})
	var ds deltas
	resp, err := llm.WithRetry(p, llm.RetryPolicy{Sleep: noSleep}).Stream(context.Background(), request("gpt-5", userText("hi")), ds.emit)
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

func TestResponsesEndWithoutCompletedIsRetryable(t *testing.T) {
	// Everything but response.completed.
	p, _ := setup(t, NewResponses, fakellm.Turn{Parts: []fakellm.Part{fakellm.Text("ok")}, EndAfter: 8})
	_, err := p.Stream(context.Background(), request("gpt-5", userText("hi")), func(llm.Delta) {})
	if !llm.IsRetryable(err) || !strings.Contains(err.Error(), "response.completed") {
		t.Fatalf("err = %v", err)
	}
}

func TestResponsesBadRequestIsNotRetried(t *testing.T) {
	p, srv := setup(t, NewResponses, fakellm.Turn{Status: 400}, fakellm.Turn{Parts: []fakellm.Part{fakellm.Text("never")}})
	_, err := llm.WithRetry(p, llm.RetryPolicy{Sleep: noSleep}).Stream(context.Background(), request("gpt-5", userText("hi")), func(llm.Delta) {})
	if err == nil || llm.IsRetryable(err) || !strings.Contains(err.Error(), "scripted HTTP 400") {
		t.Fatalf("err = %v", err)
	}
	if len(srv.Requests()) != 1 {
		t.Fatalf("%d requests", len(srv.Requests()))
	}
}

func TestResponsesCancelMidStream(t *testing.T) {
	p, _ := setup(t, NewResponses, fakellm.Turn{Parts: []fakellm.Part{fakellm.Text(answer)}, StallAfter: 6})
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	start := time.Now()
	_, err := llm.WithRetry(p, llm.RetryPolicy{Sleep: noSleep}).Stream(ctx, request("gpt-5", userText("hi")), func(d llm.Delta) {
		if d.Type == llm.DeltaText {
			cancel()
		}
	})
	if !errors.Is(err, context.Canceled) || time.Since(start) > 2*time.Second {
		t.Fatalf("err = %v after %v", err, time.Since(start))
	}
}
