package main

import (
	"strings"
	"testing"

	"github.com/gantry-dev/gantry/internal/llm/fakellm"
)

// Print mode prints a todo list once: from its event, not again as todo_write's
// preview (which says only what changed).
func TestPrintModeTodoListOnce(t *testing.T) {
	srv := fakellm.New(
		call("t1", "todo_write", `{"todos":[{"id":"1","content":"Read the failing test","status":"in_progress"},{"id":"2","content":"Fix the parser","status":"pending"}]}`),
		say("Listed."),
	)
	defer srv.Close()
	dir := t.TempDir()
	r := gantry(t, dir, env(t, "ANTHROPIC_BASE_URL="+srv.URL(), "ANTHROPIC_API_KEY=k"), "-p", "plan it")
	if r.code != 0 {
		t.Fatalf("exit %d: %s", r.code, r.stderr)
	}
	for _, item := range []string{"Read the failing test", "Fix the parser"} {
		if n := strings.Count(r.stdout, item); n != 1 {
			t.Errorf("%q is printed %d times, want once:\n%s", item, n, r.stdout)
		}
	}
	if !strings.Contains(r.stdout, "Replaced the todo list. 2 items") {
		t.Errorf("the call's summary is not printed:\n%s", r.stdout)
	}
}
