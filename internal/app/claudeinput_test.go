package app

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gantry-dev/gantry/internal/face"
	"github.com/gantry-dev/gantry/internal/llm/scripted"
)

// rewriteHook is a Claude Code PreToolUse matcher group whose command prints
// Claude's decision: allow, with updatedInput in Claude's field names.
func rewriteHook(t *testing.T, matcher string, update map[string]any) map[string]any {
	t.Helper()
	out, err := json.Marshal(map[string]any{"hookSpecificOutput": map[string]any{
		"hookEventName": "PreToolUse", "permissionDecision": "allow", "updatedInput": update}})
	if err != nil {
		t.Fatal(err)
	}
	script := filepath.Join(t.TempDir(), "hook.json")
	if err := os.WriteFile(script, out, 0o644); err != nil {
		t.Fatal(err)
	}
	return map[string]any{"matcher": matcher, "hooks": []any{map[string]any{"type": "command", "command": "cat >/dev/null; cat " + script}}}
}

// A PreToolUse hook of a Claude Code settings file that rewrites a call in Claude's
// field names (Write's file_path and content, Edit's old_string and new_string,
// MultiEdit's edits, Read's file_path, Glob's and Grep's pattern and path, Bash's
// command and timeout in milliseconds) rewrites gantry's call, through the real loop;
// a field it leaves out keeps the call's own value.
func TestClaudeUpdatedInputRewritesCalls(t *testing.T) {
	dir := project(t, "", map[string]string{
		"edit.txt":  "alpha beta\n",
		"multi.txt": "one two three\n",
		"other.txt": "the other file\n",
		"notes.md":  "needle here\n",
	})
	abs := func(name string) string { return filepath.Join(dir, name) }
	settings := map[string]any{"hooks": map[string]any{"PreToolUse": []any{
		rewriteHook(t, "Write", map[string]any{"file_path": abs("moved.txt"), "content": "rewritten\n"}),
		rewriteHook(t, "Edit", map[string]any{"new_string": "BETA"}),
		rewriteHook(t, "MultiEdit", map[string]any{"edits": []any{
			map[string]any{"old_string": "one", "new_string": "1"}, map[string]any{"old_string": "three", "new_string": "3"}}}),
		rewriteHook(t, "Read", map[string]any{"file_path": abs("other.txt")}),
		rewriteHook(t, "Glob", map[string]any{"pattern": "*.md"}),
		rewriteHook(t, "Grep", map[string]any{"pattern": "needle", "path": dir, "output_mode": "content", "-i": true}),
		rewriteHook(t, "Bash", map[string]any{"command": "echo rewritten by the hook", "timeout": 5000}),
	}}}
	raw, err := json.Marshal(settings)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(abs(".claude"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(abs(".claude/settings.json"), raw, 0o644); err != nil {
		t.Fatal(err)
	}
	p := scripted.New(
		scripted.Step{Calls: []scripted.Call{
			{ID: "write", Name: "write_file", Input: `{"path":"first.txt","content":"original\n"}`},
			{ID: "edit", Name: "edit_file", Input: `{"path":"edit.txt","edits":[{"old":"beta","new":"gamma"}]}`},
			{ID: "multi", Name: "edit_file", Input: `{"path":"multi.txt","edits":[{"old":"two","new":"2"},{"old":"three","new":"x"}]}`},
			{ID: "read", Name: "read_file", Input: `{"path":"edit.txt"}`},
			{ID: "glob", Name: "glob", Input: `{"pattern":"*.nothing"}`},
			{ID: "grep", Name: "grep", Input: `{"pattern":"absent"}`},
			{ID: "bash", Name: "bash", Input: `{"command":"echo original"}`},
		}},
		scripted.Step{Text: "done"},
	)
	rec := &recorder{}
	a, err := newStarted(Options{Cwd: dir, LLM: p, PermissionMode: "yolo"}, rec.sink, face.NoHuman{})
	if err != nil {
		t.Fatal(err)
	}
	end := a.Run(context.Background(), "go", nil)
	a.Close()
	if end.StopReason != "end_turn" {
		t.Fatalf("end %+v", end)
	}
	got := rec.finished()
	file := func(name string) string {
		b, err := os.ReadFile(abs(name))
		if err != nil {
			return "(" + err.Error() + ")"
		}
		return string(b)
	}
	if file("moved.txt") != "rewritten\n" || !strings.Contains(file("first.txt"), "no such file") {
		t.Errorf("write: moved.txt %q, first.txt %q; result %q", file("moved.txt"), file("first.txt"), got["write"])
	}
	if file("edit.txt") != "alpha BETA\n" {
		t.Errorf("edit: edit.txt %q; result %q", file("edit.txt"), got["edit"])
	}
	if file("multi.txt") != "1 two 3\n" {
		t.Errorf("multiedit: multi.txt %q; result %q", file("multi.txt"), got["multi"])
	}
	if !strings.Contains(got["read"], "the other file") {
		t.Errorf("read: %q", got["read"])
	}
	if !strings.Contains(got["glob"], "notes.md") {
		t.Errorf("glob: %q", got["glob"])
	}
	if !strings.Contains(got["grep"], "needle here") {
		t.Errorf("grep: %q", got["grep"])
	}
	if !strings.Contains(got["bash"], "rewritten by the hook") {
		t.Errorf("bash: %q", got["bash"])
	}
}

// An updatedInput in Claude's names that gantry's tool cannot take (Edit's
// replace_all) fails the call with one sentence saying why; nothing is changed.
func TestClaudeUpdatedInputRefused(t *testing.T) {
	dir := project(t, "", map[string]string{"edit.txt": "a a\n"})
	raw, err := json.Marshal(map[string]any{"hooks": map[string]any{"PreToolUse": []any{
		rewriteHook(t, "Edit", map[string]any{"old_string": "a", "new_string": "b", "replace_all": true}),
	}}})
	if err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(filepath.Join(dir, ".claude"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, ".claude/settings.json"), raw, 0o644); err != nil {
		t.Fatal(err)
	}
	p := scripted.New(
		scripted.Step{Calls: []scripted.Call{{ID: "edit", Name: "edit_file", Input: `{"path":"edit.txt","edits":[{"old":"a a","new":"c"}]}`}}},
		scripted.Step{Text: "done"},
	)
	rec := &recorder{}
	a, err := newStarted(Options{Cwd: dir, LLM: p, PermissionMode: "yolo"}, rec.sink, face.NoHuman{})
	if err != nil {
		t.Fatal(err)
	}
	a.Run(context.Background(), "go", nil)
	a.Close()
	if got := rec.finished()["edit"]; !strings.Contains(got, "replace_all") || !strings.Contains(got, "Claude Code's names") {
		t.Errorf("edit: %q", got)
	}
	if b, _ := os.ReadFile(filepath.Join(dir, "edit.txt")); string(b) != "a a\n" {
		t.Errorf("edit.txt is %q", b)
	}
}
