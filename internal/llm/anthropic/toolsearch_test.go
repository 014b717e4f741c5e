package anthropic

import (
	"context"
	"encoding/json"
	"slices"
	"testing"

	"github.com/gantry-dev/gantry/internal/llm"
	"github.com/gantry-dev/gantry/internal/llm/fakellm"
)

// The deferred tools go out marked defer_loading beside the API's bm25 tool search;
// the search's own blocks come back as server blocks naming what they found, and
// are sent back exactly as the API wrote them, before the call of a found tool.
func TestDeferredToolsAndServerSearchRoundTrip(t *testing.T) {
	p, srv := setup(t,
		fakellm.Turn{Parts: []fakellm.Part{
			fakellm.ToolSearch("srvtoolu_1", "debugger breakpoints"),
			fakellm.ToolFound("srvtoolu_1", "debug"),
			fakellm.ToolCall("toolu_1", "debug", `{"action":"status"}`),
		}},
		fakellm.Turn{Parts: []fakellm.Part{fakellm.Text("No session.")}},
	)
	if !llm.SearchesTools(llm.WithRetry(p, llm.RetryPolicy{})) {
		t.Fatal("the Messages API provider (retrying) does not say it searches tools")
	}
	schema := json.RawMessage(`{"type":"object","properties":{"action":{"type":"string"}}}`)
	req := request(userText("is a debug session running?"))
	req.Tools = []llm.ToolSpec{
		{Name: "grep", Description: "Search.", Schema: schema, Breakpoint: true},
		{Name: "bash", Description: "Run.", Schema: schema},
		{Name: "debug", Description: "Debug a program.", Schema: schema, Defer: true},
	}
	resp, err := p.Stream(context.Background(), req, func(llm.Delta) {})
	if err != nil {
		t.Fatal(err)
	}
	var server []llm.Block
	for _, b := range resp.Message.Content {
		if b.Type == llm.BlockServer {
			server = append(server, b)
		}
	}
	if len(server) != 2 || server[0].API != "anthropic" || !slices.Equal(server[1].Found, []string{"debug"}) {
		t.Fatalf("server blocks %+v", server)
	}
	if calls := resp.Message.ToolCalls(); len(calls) != 1 || calls[0].ToolName != "debug" {
		t.Fatalf("calls %+v", calls)
	}
	body := srv.Requests()[0].Body
	tools := jsonPath(t, body, "tools").([]any)
	if len(tools) != 4 {
		t.Fatalf("tools sent %v", tools)
	}
	if jsonPath(t, tools[2], "defer_loading") != true || jsonPath(t, tools[0], "defer_loading") != nil {
		t.Errorf("defer_loading on %v", tools)
	}
	if jsonPath(t, tools[3], "type") != "tool_search_tool_bm25_20251119" || jsonPath(t, tools[3], "name") != "tool_search_tool_bm25" {
		t.Errorf("search tool %v", tools[3])
	}
	if jsonPath(t, tools[0], "cache_control", "type") != "ephemeral" || jsonPath(t, tools[1], "cache_control") != nil {
		t.Errorf("the breakpoint is not on the marked tool: %v", tools[:2])
	}

	req.Messages = append(req.Messages, resp.Message, llm.Message{Role: llm.RoleUser, Content: []llm.Block{
		{Type: llm.BlockToolResult, ToolCallID: "toolu_1", Text: "no debug session"}}})
	// A block of another API is never sent here.
	req.Messages[1].Content = append([]llm.Block{{Type: llm.BlockServer, API: "openai", Raw: json.RawMessage(`{"type":"tool_search_call"}`)}}, req.Messages[1].Content...)
	if _, err := p.Stream(context.Background(), req, func(llm.Delta) {}); err != nil {
		t.Fatal(err)
	}
	sent := jsonPath(t, srv.Requests()[1].Body, "messages", 1, "content").([]any)
	if len(sent) != 3 {
		t.Fatalf("assistant content sent back: %v", sent)
	}
	if jsonPath(t, sent[0], "type") != "server_tool_use" || jsonPath(t, sent[0], "id") != "srvtoolu_1" ||
		jsonPath(t, sent[0], "input", "query") != "debugger breakpoints" {
		t.Errorf("server_tool_use sent back as %v", sent[0])
	}
	if jsonPath(t, sent[1], "type") != "tool_search_tool_result" || jsonPath(t, sent[1], "tool_use_id") != "srvtoolu_1" ||
		jsonPath(t, sent[1], "content", "tool_references", 0, "tool_name") != "debug" {
		t.Errorf("tool_search_tool_result sent back as %v", sent[1])
	}
	if jsonPath(t, sent[2], "type") != "tool_use" {
		t.Errorf("the call follows the search: %v", sent[2])
	}
}

// Without a deferred tool there is no search tool.
func TestNoSearchToolWithoutDeferredTools(t *testing.T) {
	p, srv := setup(t, fakellm.Turn{Parts: []fakellm.Part{fakellm.Text("ok")}})
	req := request(userText("hi"))
	req.Tools = []llm.ToolSpec{{Name: "bash", Description: "Run.", Schema: json.RawMessage(`{"type":"object"}`)}}
	if _, err := p.Stream(context.Background(), req, func(llm.Delta) {}); err != nil {
		t.Fatal(err)
	}
	if tools := jsonPath(t, srv.Requests()[0].Body, "tools").([]any); len(tools) != 1 {
		t.Fatalf("tools %v", tools)
	}
}
