package main

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/gantry-dev/gantry/internal/llm/fakellm"
)

// gantry prompt prints what a session sends first: the system prompt, then each
// declared tool's declaration, with estimated tokens; --json gives the same request.
// What it shows of the tools is what a real session's first request carries.
func TestPromptShowsTheFirstRequest(t *testing.T) {
	dir := t.TempDir()
	r := gantry(t, dir, env(t), "prompt")
	if r.code != 0 {
		t.Fatalf("prompt: %d %s", r.code, r.stderr)
	}
	for _, want := range []string{"═══ System prompt (", "You are gantry", "Working directory: " + dir, "═══ Tools declared: ", "─── bash (", "─── todo_write (", `"required":["todos"]`} {
		if !strings.Contains(r.stdout, want) {
			t.Errorf("prompt lacks %q:\n%s", want, r.stdout)
		}
	}
	type spec struct {
		Name        string          `json:"name"`
		Description string          `json:"description"`
		Schema      json.RawMessage `json:"input_schema"`
		Tokens      int             `json:"tokens"`
	}
	var p struct {
		System          string
		PermissionMode  string `json:"permission_mode"`
		Tools, Deferred []spec
		Tokens          struct{ System, Tools, Messages, Total int }
	}
	r = gantry(t, dir, env(t), "prompt", "--json")
	if err := json.Unmarshal([]byte(r.stdout), &p); err != nil || r.code != 0 {
		t.Fatalf("prompt --json: %v %d %q", err, r.code, r.stdout)
	}
	toolTokens := 0
	declared := map[string]spec{}
	for _, s := range p.Tools {
		declared[s.Name] = s
		toolTokens += s.Tokens
	}
	if !strings.HasPrefix(p.System, "You are gantry") || p.PermissionMode != "default" || declared["bash"].Name == "" ||
		p.Tokens.System != (len(p.System)+3)/4 || p.Tokens.Tools != toolTokens || p.Tokens.Total != p.Tokens.System+p.Tokens.Tools+p.Tokens.Messages {
		t.Errorf("prompt --json: mode %q, %d tools, tokens %+v (tools add to %d)", p.PermissionMode, len(p.Tools), p.Tokens, toolTokens)
	}
	for _, s := range p.Deferred {
		declared[s.Name] = s
	}

	// A real session's first request declares the same tools, word for word.
	srv := fakellm.New(fakellm.Turn{Parts: []fakellm.Part{fakellm.Text("Hello.")}})
	defer srv.Close()
	if r := gantry(t, dir, env(t, "ANTHROPIC_BASE_URL="+srv.URL(), "ANTHROPIC_API_KEY=k"), "-p", "hi"); r.code != 0 {
		t.Fatalf("print mode: %d %s", r.code, r.stderr)
	}
	var body struct{ Tools []spec }
	if err := json.Unmarshal(srv.Requests()[0].Raw, &body); err != nil || len(body.Tools) == 0 {
		t.Fatalf("the session's first request declares no tools: %v", err)
	}
	for _, s := range body.Tools {
		if strings.HasPrefix(s.Name, "tool_search_tool_") {
			continue // the API's own search, added by the provider
		}
		shown, ok := declared[s.Name]
		if !ok || shown.Description != s.Description || compactJSON(shown.Schema) != compactJSON(s.Schema) {
			t.Errorf("the session sends %s as\n%s\n%s\ngantry prompt shows\n%s\n%s", s.Name, s.Description, s.Schema, shown.Description, shown.Schema)
		}
	}

	// Plan mode's request has read tools only.
	r = gantry(t, dir, env(t), "prompt", "--permission-mode", "plan", "--json")
	if err := json.Unmarshal([]byte(r.stdout), &p); err != nil || r.code != 0 {
		t.Fatalf("prompt --permission-mode plan --json: %v %d %q", err, r.code, r.stdout)
	}
	for _, s := range p.Tools {
		if s.Name == "bash" || s.Name == "write_file" {
			t.Errorf("plan mode declares %s", s.Name)
		}
	}
	if r := gantry(t, dir, env(t), "prompt", "--permission-mode", "nonsense"); r.code != 2 || !strings.Contains(r.stderr, "nonsense") {
		t.Errorf("a wrong mode: %d %q", r.code, r.stderr)
	}

	// The MCP servers are not started: the request shown says their tools are missing.
	writeFiles(t, dir, map[string]string{".gantry/config.yaml": "mcpServers:\n  echo:\n    command: " + echoServer(t) + "\n"})
	r = gantry(t, dir, env(t), "prompt", "--trust")
	if r.code != 0 || !strings.Contains(r.stdout, "Not shown: the tools of the 1 MCP server(s) configured") {
		t.Errorf("prompt with an MCP server: %d %q %q", r.code, r.stdout, r.stderr)
	}
}
