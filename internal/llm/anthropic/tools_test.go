package anthropic

import (
	"encoding/json"
	"testing"

	"github.com/anthropics/anthropic-sdk-go/v2"

	"github.com/gantry-dev/gantry/internal/llm"
)

// sdkHead is the head as the SDK alone encodes it, tools included.
func sdkHead(t *testing.T, req llm.Request) []byte {
	t.Helper()
	p, err := encodeRequest(req)
	if err != nil {
		t.Fatal(err)
	}
	p.Messages = []anthropic.MessageParam{}
	b, err := json.Marshal(p)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// The head with the tools written by appendTools is the SDK's, byte for byte: the
// prompt cache keys on these bytes.
func TestToolsWrittenAsTheSDKWritesThem(t *testing.T) {
	schema := json.RawMessage("{\n  \"type\": \"object\",\n  \"properties\": {\"path\": {\"type\": \"string\", \"description\": \"a <path> & \u2028 \u00e9 \\\"q\\\"\"}},\n  \"required\": [\"path\"]\n}")
	specs := []llm.ToolSpec{
		{Name: "read_file", Description: "Reads <a> & b \u2028\u2029 \u00e9 \"quoted\" \\ \t\n", Schema: schema},
		{Name: "no_schema", Description: "none"},
		{Name: "null_schema", Schema: json.RawMessage("null")},
		{Name: "bad\xffutf8", Description: "x\xfe\x00y", Schema: json.RawMessage(`{"type":"object"}`)},
		{Name: "marked", Description: "first breakpoint", Schema: schema, Breakpoint: true},
		{Name: "marked_too", Schema: schema, Breakpoint: true},
	}
	deferred := append(append([]llm.ToolSpec(nil), specs...),
		llm.ToolSpec{Name: "later", Description: "deferred", Schema: schema, Defer: true, Breakpoint: true})
	deferred[4].Defer = true // a deferred breakpoint: the next one is marked
	for _, req := range []llm.Request{
		{Model: "m", MaxTokens: 100, System: "sys <b>", Tools: specs},
		{Model: "m", System: "", Tools: deferred},
		{Model: "m", Tools: specs[:1]},
		{Model: "m"},
	} {
		b, err := newBodyCache().Body(req)
		if err != nil {
			t.Fatal(err)
		}
		want := sdkHead(t, req)
		// The body is the head with "stream":true first and the list filled in.
		got := append([]byte(`{`), b[len(`{"stream":true,`):]...)
		if string(got) != string(want) {
			t.Fatalf("tools %d: the body differs from the SDK's encoding:\n got %s\nwant %s", len(req.Tools), got, want)
		}
	}
}

// A schema that is not JSON fails the request, as it failed the SDK's encoding.
func TestToolSchemaNotJSON(t *testing.T) {
	req := llm.Request{Model: "m", Tools: []llm.ToolSpec{{Name: "t", Schema: json.RawMessage(`{"type":`)}}}
	if _, err := newBodyCache().Body(req); err == nil {
		t.Fatal("a schema that is not JSON was sent")
	}
}
