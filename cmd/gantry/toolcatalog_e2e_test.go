package main

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"

	"github.com/gantry-dev/gantry/internal/testenv"
)

// gantry tool list names every tool a session knows — the conversation's and the
// stateful ones too — with its level, state and where gantry tool runs it.
func TestToolListNamesEveryTool(t *testing.T) {
	dir := t.TempDir()
	r := gantry(t, dir, env(t), "tool", "list")
	if r.code != 0 {
		t.Fatalf("tool list: %d %s", r.code, r.stderr)
	}
	for _, want := range []string{"eval ", "debug ", "agent ", "todo_write ", "ask_user ", "vibe_spawn ", "task ", "compact ", "register_hook ", "exit_plan_mode "} {
		if !strings.Contains(r.stdout, "\n"+want) {
			t.Errorf("tool list lacks %q:\n%s", want, r.stdout)
		}
	}
	r = gantry(t, dir, env(t, "EXA_API_KEY="), "tool", "list", "--json")
	var rows []struct{ Name, Level, State, Why, Runs string }
	if err := json.Unmarshal([]byte(r.stdout), &rows); err != nil || r.code != 0 {
		t.Fatalf("tool list --json: %v %d %q", err, r.code, r.stdout)
	}
	got := map[string]string{}
	for _, row := range rows {
		got[row.Name] = strings.Join([]string{row.Level, row.State, row.Why, row.Runs}, "|")
	}
	for name, want := range map[string]string{
		"bash":       "exec|declared||here",
		"todo_write": "read|declared||session",
		"agent":      "exec|declared||session",
		"vibe_spawn": "read|off|vibe mode is off (--vibe, /vibe)|session",
		"web_search": "read|off|no EXA_API_KEY|here",
	} {
		if got[name] != want {
			t.Errorf("%s: %q, want %q", name, got[name], want)
		}
	}
	// debug is declared where an adapter's program is installed, else off.
	if d := got["debug"]; !strings.HasPrefix(d, "exec|") || !strings.HasSuffix(d, "|mcp") {
		t.Errorf("debug: %q", d)
	}
}

// gantry tool NAME --help works for the stateful tools and the conversation's: their
// schema is the one the model reads (the declaration gantry prompt shows, byte for byte).
func TestToolHelpOfEveryTool(t *testing.T) {
	dir := t.TempDir()
	r := gantry(t, dir, env(t), "prompt", "--json")
	var req struct {
		Tools []struct {
			Name   string          `json:"name"`
			Schema json.RawMessage `json:"input_schema"`
		} `json:"tools"`
	}
	if err := json.Unmarshal([]byte(r.stdout), &req); err != nil {
		t.Fatalf("prompt --json: %v %q", err, r.stdout)
	}
	schemas := map[string]string{}
	for _, tl := range req.Tools {
		schemas[tl.Name] = compactJSON(tl.Schema)
	}
	for name, want := range map[string]string{"eval": "eval — level exec, kind execute", "todo_write": "acts on a conversation", "debug": "call it through gantry mcp", "ast_edit": "keeps state"} {
		r := gantry(t, dir, env(t), "tool", name, "--help")
		if r.code != 0 || !strings.Contains(r.stdout, want) {
			t.Errorf("tool %s --help lacks %q: %d %q %q", name, want, r.code, r.stdout, r.stderr)
			continue
		}
		_, schema, ok := strings.Cut(r.stdout, "Arguments (JSON schema, as the model reads it):\n")
		printed := compactJSON([]byte(schema))
		if !ok || printed == "" {
			t.Errorf("tool %s --help: no schema: %q", name, r.stdout)
			continue
		}
		if sent, declared := schemas[name]; declared && printed != sent {
			t.Errorf("tool %s --help prints\n%s\nthe request carries\n%s", name, printed, sent)
		}
	}
	if _, ok := schemas["todo_write"]; !ok {
		t.Errorf("gantry prompt declares no todo_write: %v", schemas)
	}
}

// gantry tool runs in one process what makes sense there (an eval cell), and says
// where to run a tool that acts on a conversation or keeps state between calls.
func TestToolRunsWhereItCan(t *testing.T) {
	dir := t.TempDir()
	r := gantry(t, dir, env(t), "tool", "todo_write", `{"todos":[{"content":"x","status":"pending"}]}`)
	if r.code != 2 || !strings.Contains(r.stderr, "todo_write acts on a conversation") || !strings.Contains(r.stderr, "gantry mcp does not serve it") {
		t.Errorf("todo_write: %d %q %q", r.code, r.stdout, r.stderr)
	}
	r = gantry(t, dir, env(t), "tool", "resolve", `{"edit_id":"e1","action":"accept"}`)
	if r.code != 2 || !strings.Contains(r.stderr, "call it through gantry mcp") {
		t.Errorf("resolve: %d %q %q", r.code, r.stdout, r.stderr)
	}
	r = gantry(t, dir, env(t), "tool", "no_such_tool", `{}`)
	if r.code != 2 || !strings.Contains(r.stderr, `no tool named "no_such_tool"`) {
		t.Errorf("an unknown tool: %d %q", r.code, r.stderr)
	}
	testenv.Need(t, "python3")
	r = gantry(t, dir, env(t), "tool", "eval", `{"language":"python","code":"x = 6 * 7\nprint(x)","description":"multiply six by seven and print it"}`)
	if r.code != 0 || strings.TrimSpace(r.stdout) != "42" {
		t.Errorf("eval: %d %q %q", r.code, r.stdout, r.stderr)
	}
	r = gantry(t, dir, env(t), "tool", "eval", `{"code":"1/0","description":"divide one by zero to see it fail"}`)
	if r.code != 1 || !strings.Contains(r.stdout, "ZeroDivisionError") {
		t.Errorf("a failing eval cell: %d %q %q", r.code, r.stdout, r.stderr)
	}
}

// compactJSON is b without the spaces between its tokens, or "" when b is not JSON.
func compactJSON(b []byte) string {
	var out bytes.Buffer
	if json.Compact(&out, bytes.TrimSpace(b)) != nil {
		return ""
	}
	return out.String()
}
