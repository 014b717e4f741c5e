package openai

import (
	"bytes"
	"encoding/json"
	"reflect"
	"testing"

	"github.com/gantry-dev/gantry/internal/llm"
	"github.com/gantry-dev/gantry/internal/llm/reqbody"
)

func decoded(t testing.TB, b []byte) map[string]any {
	t.Helper()
	var v map[string]any
	if err := json.Unmarshal(b, &v); err != nil {
		t.Fatalf("not JSON: %v\n%s", err, b)
	}
	return v
}

// growing plays a conversation of text, tool calls, tool results (one with an
// image) and checks each cached body against a fresh encoding of the request.
func growing(t *testing.T, cache *reqbody.Cache, fresh func(llm.Request) ([]byte, error)) {
	t.Helper()
	tools := []llm.ToolSpec{{Name: "read_file", Description: "reads", Schema: json.RawMessage(`{"type":"object","properties":{"input":{"type":"array"}}}`)}}
	msgs := []llm.Message{{Role: llm.RoleUser, Content: []llm.Block{{Type: llm.BlockText, Text: `say "messages":[] "input":[]`}}}}
	for i := 0; i < 4; i++ {
		req := llm.Request{Model: "m", System: "sys", MaxTokens: 100, Tools: tools, Messages: append([]llm.Message(nil), msgs...)}
		got, err := cache.Body(req)
		if err != nil {
			t.Fatal(err)
		}
		want, err := fresh(req)
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.HasPrefix(got, []byte(`{"stream":true,`)) {
			t.Fatalf("the body does not open with the stream flag: %.60s", got)
		}
		g := decoded(t, got)
		delete(g, "stream")
		if w := decoded(t, want); !reflect.DeepEqual(g, w) {
			t.Fatalf("request %d differs:\n got %s\nwant %s", i, got, want)
		}
		if cache.Len() != len(msgs)-1 {
			t.Fatalf("request %d: %d cached, want %d", i, cache.Len(), len(msgs)-1)
		}
		msgs = append(msgs,
			llm.Message{Role: llm.RoleAssistant, Content: []llm.Block{{Type: llm.BlockText, Text: "looking"},
				{Type: llm.BlockToolUse, ToolCallID: "c", ToolName: "read_file", Input: json.RawMessage(`{"path":"a"}`)}}},
			llm.Message{Role: llm.RoleUser, Content: []llm.Block{{Type: llm.BlockToolResult, ToolCallID: "c", Text: "content", IsError: i%2 == 0,
				Images: []llm.Image{{MediaType: "image/png", Data: []byte{1, 2, 3}}}}, {Type: llm.BlockText, Text: "go on"}}})
	}
}

func TestChatBodyCacheMatchesFreshEncoding(t *testing.T) {
	growing(t, newChatCache(), func(req llm.Request) ([]byte, error) {
		p, err := encodeChat(req)
		if err != nil {
			return nil, err
		}
		return json.Marshal(p)
	})
}

func TestResponsesBodyCacheMatchesSDKEncoding(t *testing.T) {
	growing(t, newResponsesCache(), func(req llm.Request) ([]byte, error) {
		p, err := encodeResponses(req)
		if err != nil {
			return nil, err
		}
		return json.Marshal(p)
	})
}
