package main

import (
	"encoding/json"
	"slices"
	"strings"
	"testing"

	"github.com/gantry-dev/gantry/internal/llm/fakellm"
)

// toolNames are the names of a recorded request's tools (Chat's under function) and
// which of them are sent deferred.
func toolNames(t *testing.T, body map[string]any) (names, deferred []string) {
	t.Helper()
	for _, x := range body["tools"].([]any) {
		tl := x.(map[string]any)
		name, _ := tl["name"].(string)
		if fn, ok := tl["function"].(map[string]any); ok {
			name, _ = fn["name"].(string)
		}
		if name == "" {
			name, _ = tl["type"].(string) // the Responses API's tool_search
		}
		names = append(names, name)
		if tl["defer_loading"] == true {
			deferred = append(deferred, name)
		}
	}
	return names, deferred
}

// On the Anthropic API gantry sends its specialist tools deferred beside the API's
// own search; the search's blocks come back, are stored, and are sent back as they
// came before the found tool's call and its result. The system prompt lists what is
// deferred and holds no date; the date goes with the prompt.
func TestDeferredToolsThroughTheAnthropicSearch(t *testing.T) {
	srv := fakellm.New(
		fakellm.Turn{Parts: []fakellm.Part{
			fakellm.ToolSearch("srvtoolu_1", "todo list"),
			fakellm.ToolFound("srvtoolu_1", "todo_read"),
			fakellm.ToolCall("toolu_1", "todo_read", `{}`),
		}},
		say("The list is empty."),
	)
	defer srv.Close()
	r := gantry(t, t.TempDir(), env(t, "ANTHROPIC_BASE_URL="+srv.URL(), "ANTHROPIC_API_KEY=k"), "-p", "what is on the list?")
	if r.code != 0 || !strings.Contains(r.stdout, "The list is empty.") {
		t.Fatalf("exit %d: %s %s", r.code, r.stdout, r.stderr)
	}
	reqs := srv.Requests()
	if len(reqs) != 2 {
		t.Fatalf("%d requests", len(reqs))
	}
	names, deferred := toolNames(t, reqs[0].Body)
	for _, core := range []string{"bash", "read_file", "edit_file", "grep", "glob", "todo_write", "agent"} {
		if !slices.Contains(names, core) || slices.Contains(deferred, core) {
			t.Errorf("%s is not declared whole: %v (deferred %v)", core, names, deferred)
		}
	}
	for _, d := range []string{"todo_read", "web_fetch", "task_output", "compact"} {
		if !slices.Contains(deferred, d) {
			t.Errorf("%s is not deferred: %v", d, deferred)
		}
	}
	if names[len(names)-1] != "tool_search_tool_bm25" || slices.Contains(names, "tool_search") {
		t.Errorf("the search tool: %v", names)
	}
	system, _ := json.Marshal(reqs[0].Body["system"])
	if !strings.Contains(string(system), "deferred-tools") || !strings.Contains(string(system), "todo_read") ||
		strings.Contains(string(system), "Date:") {
		t.Errorf("system prompt %s", system)
	}
	first, _ := json.Marshal(reqs[0].Body["messages"])
	if !strings.Contains(string(first), "Today's date is ") {
		t.Errorf("the first prompt does not tell the date: %s", first)
	}
	assistant := reqs[1].Body["messages"].([]any)[1].(map[string]any)["content"].([]any)
	var kinds []string
	for _, b := range assistant {
		kinds = append(kinds, b.(map[string]any)["type"].(string))
	}
	if !slices.Equal(kinds, []string{"server_tool_use", "tool_search_tool_result", "tool_use"}) {
		t.Errorf("the answer sent back: %v", kinds)
	}
	result := reqs[1].Body["messages"].([]any)[2].(map[string]any)["content"].([]any)[0].(map[string]any)
	if result["type"] != "tool_result" || result["is_error"] == true {
		t.Errorf("the found tool's result: %v", result)
	}
}

// On the Responses API the same, with its hosted tool_search; nothing is stored on
// the server and the session's id is the prompt cache key.
func TestDeferredToolsThroughTheResponsesSearch(t *testing.T) {
	srv := fakellm.New(
		fakellm.Turn{Parts: []fakellm.Part{
			fakellm.ToolSearch("ts_1", "todo list"),
			fakellm.ToolFound("ts_1", "todo_read"),
			fakellm.ToolCall("call_1", "todo_read", `{}`),
		}},
		say("The list is empty."),
	)
	defer srv.Close()
	r := gantry(t, t.TempDir(), env(t, "OPENAI_BASE_URL="+srv.URL()+"/v1", "OPENAI_API_KEY=k"), "--provider", "openai", "-p", "what is on the list?")
	if r.code != 0 || !strings.Contains(r.stdout, "The list is empty.") {
		t.Fatalf("exit %d: %s %s", r.code, r.stdout, r.stderr)
	}
	reqs := srv.Requests()
	names, deferred := toolNames(t, reqs[0].Body)
	if !slices.Contains(deferred, "todo_read") || slices.Contains(deferred, "bash") || names[len(names)-1] != "tool_search" {
		t.Errorf("tools %v, deferred %v", names, deferred)
	}
	key := reqs[0].Body["prompt_cache_key"]
	if key == nil || key == "" || reqs[1].Body["prompt_cache_key"] != key || reqs[0].Body["store"] != false {
		t.Errorf("prompt_cache_key %v then %v, store %v", key, reqs[1].Body["prompt_cache_key"], reqs[0].Body["store"])
	}
	var kinds []string
	for _, it := range reqs[1].Body["input"].([]any) {
		if k, ok := it.(map[string]any)["type"].(string); ok {
			kinds = append(kinds, k)
		}
	}
	if !slices.Contains(kinds, "tool_search_call") || !slices.Contains(kinds, "tool_search_output") || !slices.Contains(kinds, "function_call_output") {
		t.Errorf("input items %v", kinds)
	}
}

// On Chat Completions gantry's own tool_search finds a deferred tool, which is declared
// after the others from the next request on; the tools before it do not change.
func TestDeferredToolsThroughGantrysSearchOnChat(t *testing.T) {
	srv := fakellm.New(
		fakellm.Turn{Parts: []fakellm.Part{fakellm.ToolCall("call_1", "tool_search", `{"query":"read the todo list"}`)}},
		fakellm.Turn{Parts: []fakellm.Part{fakellm.ToolCall("call_2", "todo_read", `{}`)}},
		say("The list is empty."),
	)
	defer srv.Close()
	r := gantry(t, t.TempDir(), env(t, "OPENAI_BASE_URL="+srv.URL()+"/v1", "OPENAI_API_KEY=k"), "--provider", "openai-chat", "-p", "what is on the list?")
	if r.code != 0 || !strings.Contains(r.stdout, "The list is empty.") {
		t.Fatalf("exit %d: %s %s", r.code, r.stdout, r.stderr)
	}
	reqs := srv.Requests()
	if len(reqs) != 3 {
		t.Fatalf("%d requests", len(reqs))
	}
	before, _ := toolNames(t, reqs[0].Body)
	after, _ := toolNames(t, reqs[1].Body)
	if slices.Contains(before, "todo_read") || !slices.Contains(before, "tool_search") {
		t.Fatalf("first request's tools %v", before)
	}
	if !slices.Equal(after, append(slices.Clone(before), "todo_read")) {
		t.Fatalf("after the search: %v, before %v", after, before)
	}
	if last, _ := toolNames(t, reqs[2].Body); !slices.Equal(last, after) {
		t.Errorf("the found tool did not stay: %v", last)
	}
	if reqs[0].Body["prompt_cache_key"] == nil {
		t.Error("no prompt_cache_key on Chat Completions")
	}
}
