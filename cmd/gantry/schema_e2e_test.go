package main

import (
	"encoding/json"
	"os"
	"strings"
	"testing"

	"github.com/google/jsonschema-go/jsonschema"

	"github.com/gantry-dev/gantry/internal/llm/fakellm"
	"github.com/gantry-dev/gantry/internal/testenv"
	"github.com/gantry-dev/gantry/internal/ui/printmode"
)

// streamSchema is docs/stream-json.schema.json, resolved.
func streamSchema(t *testing.T) *jsonschema.Resolved {
	t.Helper()
	data, err := os.ReadFile("../../docs/stream-json.schema.json")
	if err != nil {
		t.Fatal(err)
	}
	var s jsonschema.Schema
	if err := json.Unmarshal(data, &s); err != nil {
		t.Fatal(err)
	}
	rs, err := s.Resolve(nil)
	if err != nil {
		t.Fatal(err)
	}
	return rs
}

// followsSchema validates every line of out and returns the kinds of line it holds
// ("type", or "type/subtype" for system and result).
func followsSchema(t *testing.T, rs *jsonschema.Resolved, out string) map[string]int {
	t.Helper()
	kinds := map[string]int{}
	for _, l := range strings.Split(strings.TrimSpace(out), "\n") {
		var v map[string]any
		if err := json.Unmarshal([]byte(l), &v); err != nil {
			t.Fatalf("not a JSON object: %q", l)
		}
		if err := rs.Validate(v); err != nil {
			t.Errorf("a line against the schema: %s\n%v", l, err)
		}
		kind, _ := v["type"].(string)
		if sub, ok := v["subtype"].(string); ok {
			kind += "/" + sub
		}
		if v["agent_id"] != nil {
			kinds["subagent"]++
		}
		kinds[kind]++
	}
	return kinds
}

// TestStreamJSONFollowsTheSchema runs print mode for real through turns that make
// every event print mode can write without a person — text, thinking, a draft, a
// call start to finish, a denial, a blocked program, a retry, a notice, a todo list,
// a subagent's events, usage, a language server's diagnostics — and one run per outcome, and validates every line
// against the schema in the repository, whose objects take no field it does not list.
// (error_store and error_cancelled need a full disk or a signal: printmode's test has
// their results.)
// (mode_changed and model_changed come only from a person's answer or command, in
// the terminal UI, ACP or -i: printmode's TestEveryEventFollowsTheSchema has them.)
func TestStreamJSONFollowsTheSchema(t *testing.T) {
	rs := streamSchema(t)
	dir := t.TempDir()
	writeFiles(t, dir, map[string]string{"y": "y\n", "notes.txt": "old\n"})
	content, _ := json.Marshal(strings.Repeat("a new line\n", 20))
	turns := []fakellm.Turn{
		{Status: 529},
		{Parts: []fakellm.Part{fakellm.Thinking("Where to start?"), fakellm.Text("Let me write."),
			fakellm.ToolCall("w1", "write_file", `{"path":"notes.txt","content":`+string(content)+`}`)}},
		call("r1", "bash", `{"command":"rm y"}`),
		call("t1", "todo_write", `{"todos":[{"id":"1","content":"write notes","status":"completed"}]}`),
		call("a1", "agent", `{"prompt":"say hi","description":"greet"}`),
		say("hi from the subagent"),
	}
	want := []string{"system/init", "text_delta", "thinking_delta", "notice", "retry", "tool_drafting", "tool_started",
		"tool_running", "tool_finished", "todo_list", "usage", "step_ended", "turn_ended", "result/success", "subagent"}
	if testenv.Has(t, "perl") {
		// A program the parser cannot see: the exec supervisor refuses it.
		turns = append(turns, call("p1", "bash", `{"command":"perl -e 'system(\"rm\", \"y\")'"}`))
		want = append(want, "exec_blocked")
	}
	_, environ := fakeModel(t, append(turns, say("Done."))...)
	r := gantry(t, dir, environ, "-p", "write @file:nope.txt", "--permission-mode", "yolo", "--deny", "bash:rm .*", "--output-format", "stream-json")
	if r.code != 0 {
		t.Fatalf("exit %d\n%s\n%s", r.code, r.stdout, r.stderr)
	}
	kinds := followsSchema(t, rs, r.stdout)
	for _, k := range want {
		if kinds[k] == 0 {
			t.Errorf("the run wrote no %s: %v", k, kinds)
		}
	}
	for k := range kinds {
		base, _, _ := strings.Cut(k, "/")
		if k != "subagent" && !strings.Contains(strings.Join(printmode.Events, " "), base) {
			t.Errorf("the run wrote %s, which the printer's table lacks", k)
		}
	}
	var res map[string]any
	lines := strings.Split(strings.TrimSpace(r.stdout), "\n")
	if err := json.Unmarshal([]byte(lines[len(lines)-1]), &res); err != nil || len(res["permission_denials"].([]any)) != 1 {
		t.Errorf("the result's denials: %v (%v)", res["permission_denials"], err)
	}

	// An edit that breaks the build: the language server's diagnostics.
	if testenv.Has(t, "gopls") {
		mod := t.TempDir()
		writeFiles(t, mod, map[string]string{"go.mod": "module m\n\ngo 1.22\n", "a.go": "package m\n\nfunc A() int { return 1 }\n"})
		_, environ := fakeModel(t, call("e1", "edit_file", `{"path":"a.go","edits":[{"old":"return 1","new":"return \"one\""}]}`), say("Broken."))
		r := gantry(t, mod, environ, "-p", "break it", "--permission-mode", "yolo", "--output-format", "stream-json")
		followsSchema(t, rs, r.stdout)
		if r.code != 0 || !strings.Contains(r.stdout, `"diagnostics":["a.go:3: error: cannot use`) {
			t.Errorf("no diagnostics: exit %d\n%s\n%s", r.code, r.stdout, r.stderr)
		}
	}

	// Each outcome's result follows it too, in both formats.
	for _, c := range []struct {
		turns   []fakellm.Turn
		args    []string
		subtype string
	}{
		{[]fakellm.Turn{{Status: 400}}, nil, "error_during_execution"},
		{[]fakellm.Turn{call("r1", "read_file", `{"path":"y"}`)}, []string{"--max-turns", "1"}, "error_max_turns"},
		{[]fakellm.Turn{{Parts: []fakellm.Part{fakellm.Text("No.")}, StopReason: "refusal"}}, nil, "error_blocked"},
		{[]fakellm.Turn{{Parts: []fakellm.Part{fakellm.Text("A long answer, cut")}, StopReason: "max_tokens"}}, nil, "error_max_tokens"},
		{[]fakellm.Turn{call("b1", "bash", `{"command":"touch z"}`)}, nil, "error_needs_person"},
	} {
		for _, format := range []string{"json", "stream-json"} {
			_, environ := fakeModel(t, c.turns...)
			r := gantry(t, dir, environ, append([]string{"-p", "go", "--output-format", format}, c.args...)...)
			if kinds := followsSchema(t, rs, r.stdout); kinds["result/"+c.subtype] != 1 {
				t.Errorf("%s, %s: exit %d, kinds %v, want one result/%s", format, c.subtype, r.code, kinds, c.subtype)
			}
		}
	}
}
