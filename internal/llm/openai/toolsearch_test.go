package openai

import (
	"context"
	"encoding/json"
	"slices"
	"testing"

	"github.com/gantry-dev/gantry/internal/llm"
	"github.com/gantry-dev/gantry/internal/llm/fakellm"
)

// Responses: nothing stored on the server, reasoning kept encrypted on our side, the
// session's cache key; deferred functions beside the hosted tool search, whose items
// come back as server blocks and are sent back as they came.
func TestResponsesStatelessCacheKeyAndToolSearch(t *testing.T) {
	p, srv := setup(t, NewResponses,
		fakellm.Turn{Parts: []fakellm.Part{
			fakellm.Thinking("The debugger is deferred."),
			fakellm.ToolSearch("ts_1", "debugger"),
			fakellm.ToolFound("ts_1", "debug"),
			fakellm.ToolCall("call_1", "debug", `{"action":"status"}`),
		}},
		fakellm.Turn{Parts: []fakellm.Part{fakellm.Text("No session.")}},
	)
	if !llm.SearchesTools(p) {
		t.Fatal("the Responses provider does not say it searches tools")
	}
	req := request("gpt-5.4", userText("debugging?"))
	req.CacheKey = "sess-1"
	req.Tools = []llm.ToolSpec{readTool, {Name: "debug", Description: "Debug.", Schema: readTool.Schema, Defer: true}}
	resp, err := p.Stream(context.Background(), req, func(llm.Delta) {})
	if err != nil {
		t.Fatal(err)
	}
	body := srv.Requests()[0].Body
	if body["store"] != false || body["prompt_cache_key"] != "sess-1" || jsonPath(t, body, "include", 0) != "reasoning.encrypted_content" {
		t.Errorf("store %v, key %v, include %v", body["store"], body["prompt_cache_key"], body["include"])
	}
	tools := jsonPath(t, body, "tools").([]any)
	if len(tools) != 3 || jsonPath(t, tools[1], "defer_loading") != true || jsonPath(t, tools[0], "defer_loading") != nil ||
		jsonPath(t, tools[2], "type") != "tool_search" {
		t.Fatalf("tools %v", tools)
	}
	var found []string
	for _, b := range resp.Message.Content {
		if b.Type == llm.BlockServer {
			found = append(found, b.Found...)
		}
	}
	if !slices.Equal(found, []string{"debug"}) {
		t.Fatalf("found %v in %+v", found, resp.Message.Content)
	}
	req.Messages = append(req.Messages, resp.Message, llm.Message{Role: llm.RoleUser, Content: []llm.Block{
		{Type: llm.BlockToolResult, ToolCallID: "call_1", Text: "no debug session"}}})
	if _, err := p.Stream(context.Background(), req, func(llm.Delta) {}); err != nil {
		t.Fatal(err)
	}
	input := jsonPath(t, srv.Requests()[1].Body, "input").([]any)
	var kinds []string
	for _, it := range input {
		k, _ := jsonPath(t, it, "type").(string)
		if k == "" && jsonPath(t, it, "role") != nil {
			k = "message" // an easy input message has no type
		}
		kinds = append(kinds, k)
	}
	want := []string{"message", "reasoning", "tool_search_call", "tool_search_output", "function_call", "function_call_output"}
	if !slices.Equal(kinds, want) {
		t.Fatalf("input items %v, want %v", kinds, want)
	}
	if jsonPath(t, input[1], "encrypted_content") == nil {
		t.Errorf("reasoning sent back without its encrypted content: %v", input[1])
	}
	if jsonPath(t, input[3], "tools", 0, "name") != "debug" || jsonPath(t, input[2], "call_id") != "ts_1" {
		t.Errorf("search items sent back as %v %v", input[2], input[3])
	}
}

// Chat Completions: the cache key is sent; it has no tool search, so a deferred tool
// is never sent to it (gantry's own tool_search finds it).
func TestChatCacheKeyAndNoDeferredTools(t *testing.T) {
	p, srv := setup(t, NewChat, fakellm.Turn{Parts: []fakellm.Part{fakellm.Text("ok")}})
	if llm.SearchesTools(p) {
		t.Fatal("the Chat provider says it searches tools")
	}
	req := request("gpt-4.1", userText("hi"))
	req.CacheKey = "sess-2"
	req.Tools = []llm.ToolSpec{readTool, {Name: "debug", Description: "Debug.", Schema: readTool.Schema, Defer: true}}
	if _, err := p.Stream(context.Background(), req, func(llm.Delta) {}); err != nil {
		t.Fatal(err)
	}
	body := srv.Requests()[0].Body
	if body["prompt_cache_key"] != "sess-2" {
		t.Errorf("prompt_cache_key %v", body["prompt_cache_key"])
	}
	tools := jsonPath(t, body, "tools").([]any)
	if len(tools) != 1 || jsonPath(t, tools[0], "function", "name") != "read" {
		b, _ := json.Marshal(tools)
		t.Fatalf("tools %s", b)
	}
}
