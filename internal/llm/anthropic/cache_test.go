package anthropic

import (
	"bytes"
	"encoding/json"
	"reflect"
	"testing"

	"github.com/gantry-dev/gantry/internal/llm"
	"github.com/gantry-dev/gantry/internal/llm/reqbody"
)

func freshJSON(t testing.TB, req llm.Request) any {
	t.Helper()
	p, err := encodeRequest(req)
	if err != nil {
		t.Fatal(err)
	}
	b, err := json.Marshal(p)
	if err != nil {
		t.Fatal(err)
	}
	var v map[string]any
	if err := json.Unmarshal(b, &v); err != nil {
		t.Fatal(err)
	}
	return v
}

func cachedJSON(t testing.TB, req llm.Request, c *reqbody.Cache) any {
	t.Helper()
	b, err := c.Body(req)
	if err != nil {
		t.Fatal(err)
	}
	var v map[string]any
	if err := json.Unmarshal(b, &v); err != nil {
		t.Fatalf("body is not JSON: %v\n%s", err, b)
	}
	if !bytes.HasPrefix(b, []byte(`{"stream":true,`)) || v["stream"] != true {
		t.Fatalf("the body does not start with the stream flag: %.60s", b)
	}
	delete(v, "stream")
	return v
}

var tools = []llm.ToolSpec{{Name: "read_file", Description: "reads", Schema: json.RawMessage(`{"type":"object","properties":{"messages":{"type":"array"}}}`)}}

// The cached body of a growing conversation is the fresh SDK encoding.
func TestBodyCacheMatchesFreshEncoding(t *testing.T) {
	cache := newBodyCache()
	var msgs []llm.Message
	add := func(m llm.Message) { msgs = append(msgs, m) }
	add(llm.Message{Role: llm.RoleUser, Content: []llm.Block{{Type: llm.BlockText, Text: `say "messages":[] please`}}})
	for i := 0; i < 4; i++ {
		req := llm.Request{Model: "m", System: `sys with "messages":[]`, Tools: tools, Messages: append([]llm.Message(nil), msgs...)}
		if got, want := cachedJSON(t, req, cache), freshJSON(t, req); !reflect.DeepEqual(got, want) {
			t.Fatalf("request %d differs:\n got %v\nwant %v", i, got, want)
		}
		if cache.Len() != len(msgs)-1 {
			t.Fatalf("request %d: %d cached messages, want %d", i, cache.Len(), len(msgs)-1)
		}
		add(llm.Message{Role: llm.RoleAssistant, Content: []llm.Block{
			{Type: llm.BlockText, Text: "looking"},
			{Type: llm.BlockToolUse, ToolCallID: "c", ToolName: "read_file", Input: json.RawMessage(`{"path":"a"}`)}}})
		add(llm.Message{Role: llm.RoleUser, Content: []llm.Block{
			{Type: llm.BlockToolResult, ToolCallID: "c", Text: "content", IsError: i%2 == 0}}})
	}
	// A new conversation, system prompt and tool list: old entries are dropped, the
	// head is rebuilt.
	other := llm.Request{Model: "m2", System: "other", Messages: []llm.Message{
		{Role: llm.RoleUser, Content: []llm.Block{{Type: llm.BlockText, Text: "a"}}},
		{Role: llm.RoleAssistant, Content: []llm.Block{{Type: llm.BlockText, Text: "b"}}},
		{Role: llm.RoleUser, Content: []llm.Block{{Type: llm.BlockText, Text: "c"}}}}}
	if got, want := cachedJSON(t, other, cache), freshJSON(t, other); !reflect.DeepEqual(got, want) {
		t.Fatalf("new conversation differs:\n got %v\nwant %v", got, want)
	}
	if cache.Len() != 2 {
		t.Fatalf("%d entries after a new conversation, want 2", cache.Len())
	}
}

func conversation(n int) llm.Request {
	var msgs []llm.Message
	for i := 0; i < n/2; i++ {
		msgs = append(msgs,
			llm.Message{Role: llm.RoleAssistant, Content: []llm.Block{{Type: llm.BlockText, Text: "step"},
				{Type: llm.BlockToolUse, ToolCallID: "c", ToolName: "read_file", Input: json.RawMessage(`{"path":"a.go"}`)}}},
			llm.Message{Role: llm.RoleUser, Content: []llm.Block{{Type: llm.BlockToolResult, ToolCallID: "c", Text: "package a\n\nfunc A() {}\n"}}})
	}
	return llm.Request{Model: "m", System: "sys", Tools: tools, Messages: msgs}
}

func BenchmarkEncode100Messages(b *testing.B) {
	req := conversation(100)
	b.Run("sdk", func(b *testing.B) {
		for i := 0; i < b.N; i++ {
			p, _ := encodeRequest(req)
			if _, err := json.Marshal(p); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("cached", func(b *testing.B) {
		c := newBodyCache()
		for i := 0; i < b.N; i++ {
			if _, err := c.Body(req); err != nil {
				b.Fatal(err)
			}
		}
	})
}
