package openai

import (
	"context"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/gantry-dev/gantry/internal/llm"
	"github.com/gantry-dev/gantry/internal/llm/fakellm"
)

// setup starts a fake server with turns and returns the provider made by newP
// talking to it.
func setup(t *testing.T, newP func(Options) llm.Provider, turns ...fakellm.Turn) (llm.Provider, *fakellm.Server) {
	t.Helper()
	srv := fakellm.New(turns...)
	tr := &http.Transport{}
	t.Cleanup(func() {
		srv.Close()
		tr.CloseIdleConnections()
	})
	return newP(Options{APIKey: "test-key", BaseURL: srv.URL() + "/v1", HTTPClient: &http.Client{Transport: tr}}), srv
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

func (d deltas) toolCalls() []*llm.Block {
	var calls []*llm.Block
	for _, x := range d {
		if x.Type == llm.DeltaToolCall {
			calls = append(calls, x.ToolCall)
		}
	}
	return calls
}

// retryIndex is the index of the last DeltaRetry, -1 if none.
func (d deltas) retryIndex() int {
	at := -1
	for i, x := range d {
		if x.Type == llm.DeltaRetry {
			at = i
		}
	}
	return at
}

func userText(s string) llm.Message {
	return llm.Message{Role: llm.RoleUser, Content: []llm.Block{{Type: llm.BlockText, Text: s}}}
}

func request(model string, msgs ...llm.Message) llm.Request {
	return llm.Request{Model: model, System: "You are gantry.", Messages: msgs}
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

// toolTurn calls two tools, one without arguments.
var toolTurn = fakellm.Turn{Parts: []fakellm.Part{
	fakellm.Text("Let me look."),
	fakellm.ToolCall("call_1", "read", `{"path":"go.mod","note":"héllo wörld"}`),
	fakellm.ToolCall("call_2", "ls", ""),
}}

var readTool = llm.ToolSpec{Name: "read", Description: "Read a file.",
	Schema: []byte(`{"type":"object","properties":{"path":{"type":"string"}},"required":["path"]}`)}

// toolResults answers toolTurn: a text result, a failed one with an image.
var toolResults = llm.Message{Role: llm.RoleUser, Content: []llm.Block{
	{Type: llm.BlockToolResult, ToolCallID: "call_1", Text: "module github.com/gantry-dev/gantry"},
	{Type: llm.BlockToolResult, ToolCallID: "call_2", Text: "ls: permission denied", IsError: true,
		Images: []llm.Image{{MediaType: "image/png", Data: []byte("png!")}}},
	{Type: llm.BlockText, Text: "Also, hurry."},
}}

// pngURL is the data URL of the image in toolResults.
const pngURL = "data:image/png;base64,cG5nIQ=="
