package llm_test

import (
	"context"
	"encoding/json"
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

// bounded are the three wire formats with a bound on the bytes of one response.
var bounded = []struct {
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

var hi = llm.Request{Model: "m", MaxTokens: 100,
	Messages: []llm.Message{{Role: llm.RoleUser, Content: []llm.Block{{Type: llm.BlockText, Text: "hi"}}}}}

// streamRetrying sends hi through p with retries that do not wait, and returns the
// answer, the retry notices and the error.
func streamRetrying(p llm.Provider) (llm.Response, []string, error) {
	var retries []string
	resp, err := llm.WithRetry(p, llm.RetryPolicy{Sleep: noWait}).Stream(context.Background(), hi, func(d llm.Delta) {
		if d.Type == llm.DeltaRetry {
			retries = append(retries, d.Text)
		}
	})
	return resp, retries, err
}

// A stream that starts and then sends only keep-alives (Anthropic's ping events,
// SSE comments) — which keep the idle bound from firing — ends after the ping
// bound with a sentence naming its key, and is retried as any stall.
func TestPingsWithoutContentAreBounded(t *testing.T) {
	defer goleak.VerifyNone(t)
	for _, pv := range bounded {
		t.Run(pv.name, func(t *testing.T) {
			srv := fakellm.New(
				fakellm.Turn{Parts: []fakellm.Part{fakellm.Text("never comes")}, PingsAfter: 1},
				fakellm.Turn{Parts: []fakellm.Part{fakellm.Text("the answer")}},
			)
			defer srv.Close()
			client := &http.Client{Transport: llm.Guard(nil, llm.Bounds{Idle: time.Minute, Pings: 150 * time.Millisecond})}
			defer client.CloseIdleConnections()
			resp, retries, err := streamRetrying(pv.make(srv.URL(), client, 0))
			if err != nil {
				t.Fatal(err)
			}
			if resp.Message.Text() != "the answer" || len(retries) != 1 ||
				!strings.Contains(retries[0], "sent only keep-alive pings, no content, for 150ms (model.pingTimeout)") {
				t.Errorf("answer %q, retries %q", resp.Message.Text(), retries)
			}
		})
	}
}

// A response that streams steadily but never ends is cut at the total bound, with a
// sentence naming its key, and retried as any stall.
func TestResponseTimeBounded(t *testing.T) {
	defer goleak.VerifyNone(t)
	for _, pv := range bounded {
		t.Run(pv.name, func(t *testing.T) {
			srv := fakellm.New(
				fakellm.Turn{Parts: []fakellm.Part{fakellm.EndlessText("more and more ")}, Delay: time.Millisecond},
				fakellm.Turn{Parts: []fakellm.Part{fakellm.Text("the answer")}},
			)
			defer srv.Close()
			client := &http.Client{Transport: llm.Guard(nil, llm.Bounds{Idle: time.Minute, Pings: time.Minute, Total: 300 * time.Millisecond})}
			defer client.CloseIdleConnections()
			resp, retries, err := streamRetrying(pv.make(srv.URL(), client, 0))
			if err != nil {
				t.Fatal(err)
			}
			if resp.Message.Text() != "the answer" || len(retries) != 1 ||
				!strings.Contains(retries[0], "went on for 300ms without ending, the bound of one response (model.responseTimeout)") {
				t.Errorf("answer %q, retries %q", resp.Message.Text(), retries)
			}
		})
	}
}

// Endless text is stopped once the response passes its bound of bytes: the error
// says so, is not retried, and the text streamed until then was emitted.
func TestEndlessTextIsStopped(t *testing.T) {
	defer goleak.VerifyNone(t)
	const limit = 64 << 10
	for _, pv := range bounded {
		t.Run(pv.name, func(t *testing.T) {
			srv := fakellm.New(fakellm.Turn{Parts: []fakellm.Part{fakellm.EndlessText("on and on and on ")}})
			defer srv.Close()
			client := &http.Client{Transport: llm.Guard(nil, llm.Bounds{})}
			defer client.CloseIdleConnections()
			var text strings.Builder
			_, err := llm.WithRetry(pv.make(srv.URL(), client, limit), llm.RetryPolicy{Sleep: noWait}).
				Stream(context.Background(), hi, func(d llm.Delta) {
					if d.Type == llm.DeltaText {
						text.WriteString(d.Text)
					}
				})
			var tl *llm.TooLongError
			if !errors.As(err, &tl) || llm.IsRetryable(err) || !strings.Contains(err.Error(), "passed 64 KiB") {
				t.Fatalf("err = %v", err)
			}
			if n := text.Len(); n < limit-64 || n > limit || !strings.HasPrefix(text.String(), "on and on") {
				t.Errorf("streamed %d bytes before the stop", n)
			}
			if got := len(srv.Requests()); got != 1 {
				t.Errorf("%d requests: a stopped response was retried", got)
			}
		})
	}
}

// An event whose data cannot be read is said as such, with the byte where reading
// failed — not as a failed connection — and is not retried.
func TestMalformedEventsAreNamed(t *testing.T) {
	defer goleak.VerifyNone(t)
	cases := []struct{ data, want string }{
		{`{"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"a"`, "unexpected end of JSON input at byte "},
		{`{"type": x}`, "invalid character 'x' looking for beginning of value at byte "},
		{`[1, 2, 3]`, "it is not a JSON object but an array at byte "},
	}
	for _, pv := range bounded {
		for _, c := range cases {
			t.Run(pv.name, func(t *testing.T) {
				srv := fakellm.New(fakellm.Turn{Parts: []fakellm.Part{fakellm.Text("some text here and more")}, Malformed: c.data, CutAfter: 3})
				defer srv.Close()
				client := &http.Client{Transport: llm.Guard(nil, llm.Bounds{})}
				defer client.CloseIdleConnections()
				_, retries, err := streamRetrying(pv.make(srv.URL(), client, 0))
				var me *llm.MalformedEventError
				if err == nil || !errors.As(err, &me) || len(retries) != 0 {
					t.Fatalf("err = %v, retries %q", err, retries)
				}
				msg := err.Error()
				if !strings.HasPrefix(msg, pv.name+": the model's stream sent an event gantry cannot read: "+c.want) ||
					strings.Contains(msg, "connection failed") || !strings.Contains(msg, "of the stream (the event's data: ") {
					t.Errorf("error: %s", msg)
				}
				if me.Offset <= 0 {
					t.Errorf("offset %d", me.Offset)
				}
				// Without the guard, the SDK's own decoding error is said alike,
				// without the position (bad JSON; an array some SDKs let pass).
				if strings.HasPrefix(c.data, "[") {
					return
				}
				srv.Append(fakellm.Turn{Parts: []fakellm.Part{fakellm.Text("some text here and more")}, Malformed: c.data, CutAfter: 3})
				plain := &http.Client{}
				defer plain.CloseIdleConnections()
				_, err = pv.make(srv.URL(), plain, 0).Stream(context.Background(), hi, func(llm.Delta) {})
				if err == nil || llm.IsRetryable(err) || !strings.HasPrefix(err.Error(), pv.name+": the model's stream sent an event gantry cannot read: ") {
					t.Errorf("without the guard: %v", err)
				}
			})
		}
	}
}

// A Retry-After beyond the cap waits the cap, and the notice says so: for each API,
// from its real header.
func TestRetryAfterIsCapped(t *testing.T) {
	defer goleak.VerifyNone(t)
	for _, pv := range bounded {
		t.Run(pv.name, func(t *testing.T) {
			srv := fakellm.New(
				fakellm.Turn{Status: 429, RetryAfter: "86400"},
				fakellm.Turn{Status: 429, RetryAfter: "2"},
				fakellm.Turn{Parts: []fakellm.Part{fakellm.Text("the answer")}},
			)
			defer srv.Close()
			client := &http.Client{Transport: llm.Guard(nil, llm.Bounds{})}
			defer client.CloseIdleConnections()
			var waits []time.Duration
			sleep := func(ctx context.Context, d time.Duration) error { waits = append(waits, d); return ctx.Err() }
			var retries []string
			resp, err := llm.WithRetry(pv.make(srv.URL(), client, 0), llm.RetryPolicy{Sleep: sleep, MaxRetryAfter: 5 * time.Second}).
				Stream(context.Background(), hi, func(d llm.Delta) {
					if d.Type == llm.DeltaRetry {
						retries = append(retries, d.Text)
					}
				})
			if err != nil || resp.Message.Text() != "the answer" {
				t.Fatalf("%q, %v", resp.Message.Text(), err)
			}
			if len(waits) != 2 || waits[0] != 5*time.Second || waits[1] != 2*time.Second {
				t.Errorf("waits %v", waits)
			}
			if len(retries) != 2 || !strings.Contains(retries[0], "; the server asked to wait 24h0m0s; waiting 5s, the cap of model.maxRetryAfter (attempt 2 of 5)") ||
				!strings.Contains(retries[1], "; retrying in 2s (attempt 3 of 5)") {
				t.Errorf("retries %q", retries)
			}
		})
	}
}

// Tool arguments that are not JSON come back with Input {} and the text kept as
// RawInput, and are sent back as the model wrote them, wrapped in
// {"_unparsed_arguments": …}: Anthropic's input must be an object, and compatible
// OpenAI servers refuse an arguments string that is not JSON.
func TestInvalidToolArgumentsAreKept(t *testing.T) {
	defer goleak.VerifyNone(t)
	const bad = `{"command": "ls -la`
	for _, pv := range bounded {
		t.Run(pv.name, func(t *testing.T) {
			srv := fakellm.New(
				fakellm.Turn{Parts: []fakellm.Part{fakellm.ToolCall("call_1", "bash", bad)}},
				fakellm.Turn{Parts: []fakellm.Part{fakellm.Text("ok")}},
			)
			defer srv.Close()
			client := &http.Client{Transport: llm.Guard(nil, llm.Bounds{})}
			defer client.CloseIdleConnections()
			p := pv.make(srv.URL(), client, 0)
			var announced *llm.Block
			resp, err := p.Stream(context.Background(), hi, func(d llm.Delta) {
				if d.Type == llm.DeltaToolCall {
					announced = d.ToolCall
				}
			})
			if err != nil {
				t.Fatal(err)
			}
			calls := resp.Message.ToolCalls()
			if len(calls) != 1 || calls[0].RawInput != bad || string(calls[0].Input) != "{}" ||
				announced == nil || announced.RawInput != bad {
				t.Fatalf("calls %+v, announced %+v", calls, announced)
			}
			next := hi
			next.Messages = append(append([]llm.Message(nil), hi.Messages...), resp.Message,
				llm.Message{Role: llm.RoleUser, Content: []llm.Block{{Type: llm.BlockToolResult, ToolCallID: calls[0].ToolCallID,
					Text: llm.ArgumentsError(calls[0]), IsError: true}}})
			if _, err := p.Stream(context.Background(), next, func(llm.Delta) {}); err != nil {
				t.Fatal(err)
			}
			if got := sentArguments(t, pv.name, srv.Requests()[1].Raw); got != bad {
				t.Errorf("sent back %q, want %q", got, bad)
			}
		})
	}
}

// sentArguments finds the arguments of the tool call in a request body as sent.
func sentArguments(t *testing.T, api string, body []byte) string {
	t.Helper()
	var req struct {
		Messages []struct {
			Content   json.RawMessage `json:"content"`
			ToolCalls []struct {
				Function struct {
					Arguments string `json:"arguments"`
				} `json:"function"`
			} `json:"tool_calls"`
		} `json:"messages"`
		Input []struct {
			Type      string `json:"type"`
			Arguments string `json:"arguments"`
		} `json:"input"`
	}
	if err := json.Unmarshal(body, &req); err != nil {
		t.Fatal(err)
	}
	unwrap := func(args string) string {
		var in struct {
			Unparsed string `json:"_unparsed_arguments"`
		}
		if err := json.Unmarshal([]byte(args), &in); err != nil {
			t.Fatalf("the arguments sent back are not JSON: %q", args)
		}
		return in.Unparsed
	}
	switch api {
	case "openai":
		for _, it := range req.Input {
			if it.Type == "function_call" {
				return unwrap(it.Arguments)
			}
		}
	case "openai-chat":
		for _, m := range req.Messages {
			if len(m.ToolCalls) > 0 {
				return unwrap(m.ToolCalls[0].Function.Arguments)
			}
		}
	case "anthropic":
		for _, m := range req.Messages {
			var blocks []struct {
				Type  string `json:"type"`
				Input struct {
					Unparsed string `json:"_unparsed_arguments"`
				} `json:"input"`
			}
			if json.Unmarshal(m.Content, &blocks) == nil {
				for _, b := range blocks {
					if b.Type == "tool_use" {
						return b.Input.Unparsed
					}
				}
			}
		}
	}
	t.Fatalf("no tool call in %s", body)
	return ""
}

// The bound counts thinking and tool-call arguments too, on each API.
func TestLongThinkingAndArgumentsAreStopped(t *testing.T) {
	defer goleak.VerifyNone(t)
	const limit = 16 << 10
	long := strings.Repeat("word ", 4<<10) // 20 KiB
	for _, pv := range bounded {
		for _, part := range []fakellm.Part{fakellm.Thinking(long), fakellm.ToolCall("call_1", "bash", `{"command":"`+long+`"}`)} {
			t.Run(pv.name+"/"+string(part.Kind), func(t *testing.T) {
				srv := fakellm.New(fakellm.Turn{Parts: []fakellm.Part{part}})
				defer srv.Close()
				client := &http.Client{Transport: llm.Guard(nil, llm.Bounds{})}
				defer client.CloseIdleConnections()
				_, err := pv.make(srv.URL(), client, limit).Stream(context.Background(), hi, func(llm.Delta) {})
				var tl *llm.TooLongError
				if !errors.As(err, &tl) || tl.Limit != limit {
					t.Fatalf("err = %v", err)
				}
			})
		}
	}
}
