package agent

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"strings"
	"testing"

	"github.com/gantry-dev/gantry/internal/face"
	"github.com/gantry-dev/gantry/internal/llm"
	"github.com/gantry-dev/gantry/internal/llm/anthropic"
	"github.com/gantry-dev/gantry/internal/llm/fakellm"
	"github.com/gantry-dev/gantry/internal/llm/openai"
	"github.com/gantry-dev/gantry/internal/permission"
)

// wireAPIs are the three real providers, on a fake server's URL.
var wireAPIs = []struct {
	name string
	make func(url string, c *http.Client, maxBytes int) llm.Provider
}{
	{"anthropic", func(url string, c *http.Client, n int) llm.Provider {
		return anthropic.New(anthropic.Options{APIKey: "k", BaseURL: url, HTTPClient: c, MaxResponseBytes: n})
	}},
	{"openai", func(url string, c *http.Client, n int) llm.Provider {
		return openai.NewResponses(openai.Options{APIKey: "k", BaseURL: url + "/v1", HTTPClient: c, MaxResponseBytes: n})
	}},
	{"openai-chat", func(url string, c *http.Client, n int) llm.Provider {
		return openai.NewChat(openai.Options{APIKey: "k", BaseURL: url + "/v1", HTTPClient: c, MaxResponseBytes: n})
	}},
}

// A call whose arguments are not JSON is not run as {}: the model is told its
// arguments were not valid JSON, with the parser's reason and position; the history
// keeps the text it sent, and the next request carries it back, wrapped as
// {"_unparsed_arguments": …} — on each API.
func TestNonJSONArgumentsAreNotRun(t *testing.T) {
	const bad = `{"text": "hi`
	for _, api := range wireAPIs {
		t.Run(api.name, func(t *testing.T) {
			srv := fakellm.New(
				fakellm.Turn{Parts: []fakellm.Part{fakellm.ToolCall("call_1", "echo", bad)}},
				fakellm.Turn{Parts: []fakellm.Part{fakellm.Text("ok")}},
			)
			defer srv.Close()
			client := &http.Client{Transport: llm.Guard(nil, llm.Bounds{})}
			defer client.CloseIdleConnections()
			a, ev, peak := newAgent(t, api.make(srv.URL(), client, 0), permission.ModeYolo)
			end := a.Run(context.Background(), "go")
			if end.StopReason != "end_turn" || end.Text != "ok" {
				t.Fatalf("end = %+v", end)
			}
			if *peak != 0 {
				t.Error("echo ran")
			}
			const told = "The arguments of this echo call were not valid JSON (unexpected end of JSON input at byte 12 of 12), so the tool was not run."
			var result string
			for _, e := range ev.ev {
				if f, ok := e.(face.ToolFinished); ok {
					result = f.Result.Text
				}
			}
			if !strings.HasPrefix(result, told) {
				t.Errorf("the model was told %q", result)
			}
			h := a.History()
			if len(h) != 4 || len(h[1].ToolCalls()) != 1 || h[1].ToolCalls()[0].RawInput != bad {
				t.Fatalf("history %+v", h)
			}
			reqs := srv.Requests()
			if len(reqs) != 2 {
				t.Fatalf("%d requests", len(reqs))
			}
			body := string(reqs[1].Raw)
			wrapped := string(llm.UnparsedInput(bad))
			if api.name != "anthropic" { // an arguments string
				quoted, _ := json.Marshal(wrapped)
				wrapped = string(quoted)
			}
			if !strings.Contains(body, wrapped) {
				t.Errorf("the arguments were not sent back as %s: %s", wrapped, body)
			}
			toldJSON, _ := json.Marshal(told)
			if !strings.Contains(body, strings.Trim(string(toldJSON), `"`)) {
				t.Errorf("the result was not sent: %s", body)
			}
		})
	}
}

// Endless text ends the turn once the response passes its bound: the turn says why,
// and the text that came is kept in the history.
func TestEndlessTextEndsTheTurnKeepingText(t *testing.T) {
	const limit = 32 << 10
	for _, api := range wireAPIs {
		t.Run(api.name, func(t *testing.T) {
			srv := fakellm.New(fakellm.Turn{Parts: []fakellm.Part{fakellm.EndlessText("again and again ")}})
			defer srv.Close()
			client := &http.Client{Transport: llm.Guard(nil, llm.Bounds{})}
			defer client.CloseIdleConnections()
			a, _, _ := newAgent(t, llm.WithRetry(api.make(srv.URL(), client, limit), llm.RetryPolicy{}), permission.ModeYolo)
			end := a.Run(context.Background(), "go")
			var tl *llm.TooLongError
			if end.StopReason != "error" || !errors.As(end.Err, &tl) {
				t.Fatalf("end = %+v", end)
			}
			if !strings.Contains(end.Err.Error(), "passed 32 KiB of text, thinking and tool arguments") {
				t.Errorf("said %q", end.Err)
			}
			h := a.History()
			if len(h) != 2 || len(h[1].Text()) < limit-64 || !strings.HasPrefix(h[1].Text(), "again and again") {
				t.Fatalf("kept %d messages, the last %d bytes", len(h), len(h[len(h)-1].Text()))
			}
		})
	}
}
