package openai

import (
	"bytes"
	"encoding/json"
	"flag"
	"os"
	"path/filepath"
	"reflect"
	"testing"

	"github.com/gantry-dev/gantry/internal/llm"
	"github.com/gantry-dev/gantry/internal/llm/reqbody"
)

// The request bodies of both APIs for a corpus of requests are kept as golden
// files under testdata/golden/<api>/<case>.json: the encoders must keep producing
// the same JSON values (key order aside). After a deliberate change of the wire
// format, rewrite them with
//
//	go test -run TestGoldenBodies ./internal/llm/openai/ -update
//
// and review the diff of testdata before committing it.
var update = flag.Bool("update", false, "rewrite the golden request bodies under testdata/golden")

// goldenCorpus covers every kind of content the encoders map.
func goldenCorpus() map[string]llm.Request {
	png := []llm.Image{{MediaType: "image/png", Data: []byte("png!")}}
	jpeg := []llm.Image{{MediaType: "image/jpeg", Data: []byte{0xff, 0xd8, 0xff}}}
	user := func(blocks ...llm.Block) llm.Message { return llm.Message{Role: llm.RoleUser, Content: blocks} }
	asst := func(blocks ...llm.Block) llm.Message { return llm.Message{Role: llm.RoleAssistant, Content: blocks} }
	text := func(s string) llm.Block { return llm.Block{Type: llm.BlockText, Text: s} }
	call := func(id, name, input string) llm.Block {
		return llm.Block{Type: llm.BlockToolUse, ToolCallID: id, ToolName: name, Input: json.RawMessage(input)}
	}
	result := func(id, s string) llm.Block {
		return llm.Block{Type: llm.BlockToolResult, ToolCallID: id, Text: s}
	}
	return map[string]llm.Request{
		"system_and_text": {Model: "gpt-4.1", System: "You are gantry.", Messages: []llm.Message{user(text("What is the module?"))}},
		"no_system_several_texts": {Model: "m", Messages: []llm.Message{
			user(text("first <b>&</b>"), text(""), text("third \"quoted\" héllo"))}},
		"images": {Model: "gpt-4o", System: "s", Messages: []llm.Message{
			user(text("look at these"), llm.Block{Type: llm.BlockImage, Images: append(png, jpeg...)}, text("and say"))}},
		"images_empty_text": {Model: "gpt-4o", Messages: []llm.Message{
			user(text(""), llm.Block{Type: llm.BlockImage, Images: png}),
			asst(call("c1", "shot", `{}`)),
			user(result("c1", ""))}},
		"image_only": {Model: "gpt-4o", Messages: []llm.Message{user(llm.Block{Type: llm.BlockImage, Images: png})}},
		"tool_round": {Model: "gpt-4.1", System: "sys", Messages: []llm.Message{
			user(text("module?")),
			asst(llm.Block{Type: llm.BlockThinking, Text: "The user asks."}, text("Let me look."), text(" Two parts."),
				call("call_1", "read", `{"path":"go.mod","note":"héllo wörld"}`), call("call_2", "ls", ""),
				call("call_3", "grep", "null")),
			user(result("call_1", "module github.com/gantry-dev/gantry"),
				llm.Block{Type: llm.BlockToolResult, ToolCallID: "call_2", Text: "ls: permission denied", IsError: true, Images: png},
				llm.Block{Type: llm.BlockToolResult, ToolCallID: "call_3", Text: "", IsError: true},
				text("Also, hurry.")),
		}},
		"tool_results_only": {Model: "m", Messages: []llm.Message{
			user(text("go")),
			asst(call("c1", "read", `{"path":"a"}`)),
			user(result("c1", "contents"), llm.Block{Type: llm.BlockToolResult, ToolCallID: "c2", Text: "shot", Images: jpeg}),
		}},
		"unparsed_arguments": {Model: "m", Messages: []llm.Message{
			user(text("go")),
			asst(llm.Block{Type: llm.BlockToolUse, ToolCallID: "c1", ToolName: "write", Input: json.RawMessage("{}"), RawInput: `{"path": "a", "text": "unterminated`}),
			user(result("c1", "Error: your arguments were not JSON")),
		}},
		"assistant_empty": {Model: "m", Messages: []llm.Message{user(text("hi")), asst(), user(text("again"))}},
		"assistant_thinking_only": {Model: "m", Messages: []llm.Message{
			user(text("hi")), asst(llm.Block{Type: llm.BlockThinking, Text: "hmm", Signature: "sig-of-another-api"}), user(text("again"))}},
		"tools_cache_key_max_tokens": {Model: "gpt-5.4", System: "You are gantry.", CacheKey: "sess-42", MaxTokens: 32000,
			Messages: []llm.Message{user(text("hi"))},
			Tools: []llm.ToolSpec{
				{Name: "read", Description: "Read a file.", Schema: json.RawMessage(`{"type":"object","properties":{"path":{"type":"string"}},"required":["path"]}`)},
				{Name: "ls", Schema: nil},
				{Name: "nothing", Description: "Takes null.", Schema: json.RawMessage("null")},
				{Name: "debug", Description: "Debug a program.", Schema: json.RawMessage(`{"type":"object","properties":{"action":{"type":"string","enum":["start","stop"]}}}`), Defer: true},
			}},
	}
}

func TestGoldenBodies(t *testing.T) {
	for api, newCache := range map[string]func() *reqbody.Cache{"chat": newChatCache, "responses": newResponsesCache} {
		for name, req := range goldenCorpus() {
			t.Run(api+"/"+name, func(t *testing.T) {
				got, err := newCache().Body(req)
				if err != nil {
					t.Fatal(err)
				}
				path := filepath.Join("testdata", "golden", api, name+".json")
				if *update {
					var pretty bytes.Buffer
					if err := json.Indent(&pretty, got, "", "  "); err != nil {
						t.Fatal(err)
					}
					pretty.WriteByte('\n')
					if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
						t.Fatal(err)
					}
					if err := os.WriteFile(path, pretty.Bytes(), 0o644); err != nil {
						t.Fatal(err)
					}
					return
				}
				want, err := os.ReadFile(path)
				if err != nil {
					t.Fatalf("%v (rewrite the golden files with -update)", err)
				}
				if g, w := decodedAny(t, got), decodedAny(t, want); !reflect.DeepEqual(g, w) {
					t.Fatalf("the body differs from %s:\n got %s\nwant %s", path, got, want)
				}
			})
		}
	}
}

func decodedAny(t *testing.T, b []byte) any {
	t.Helper()
	var v any
	if err := json.Unmarshal(b, &v); err != nil {
		t.Fatalf("not JSON: %v\n%s", err, b)
	}
	return v
}
