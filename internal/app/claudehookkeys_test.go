package app

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/gantry-dev/gantry/internal/face"
	"github.com/gantry-dev/gantry/internal/llm/scripted"
)

// writeClaudeSettings writes the project's .claude/settings.json.
func writeClaudeSettings(t *testing.T, dir string, settings map[string]any) {
	t.Helper()
	raw, err := json.Marshal(settings)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(filepath.Join(dir, ".claude"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, ".claude", "settings.json"), raw, 0o644); err != nil {
		t.Fatal(err)
	}
}

// A Claude Code hook's if (a permission rule) lets it run only for the calls that
// match: a Bash(echo commit:*) hook runs for echo commit, also inside a compound
// command, and not for echo hi; an Edit(*.py) hook runs for the write of a.py (Write
// is of Edit's family) and not of b.txt.
func TestClaudeHookIf(t *testing.T) {
	dir := project(t, "", map[string]string{})
	writeClaudeSettings(t, dir, map[string]any{"hooks": map[string]any{"PreToolUse": []any{
		map[string]any{"matcher": "Bash", "hooks": []any{map[string]any{"type": "command", "if": "Bash(echo commit:*)", "command": "cat >> bash.log; echo >> bash.log"}}},
		map[string]any{"matcher": "Write|Edit", "hooks": []any{map[string]any{"type": "command", "if": "Edit(*.py)", "command": "cat >> edit.log; echo >> edit.log"}}},
	}}})
	p := scripted.New(
		scripted.Step{Calls: []scripted.Call{
			{ID: "hi", Name: "bash", Input: `{"command":"echo hi"}`},
			{ID: "commit", Name: "bash", Input: `{"command":"echo commit now"}`},
			{ID: "compound", Name: "bash", Input: `{"command":"true && echo commit two"}`},
			{ID: "py", Name: "write_file", Input: `{"path":"a.py","content":"x = 1\n"}`},
			{ID: "txt", Name: "write_file", Input: `{"path":"b.txt","content":"x\n"}`},
		}},
		scripted.Step{Text: "done"},
	)
	rec := &recorder{}
	a, err := newStarted(Options{Cwd: dir, LLM: p, PermissionMode: "yolo"}, rec.sink, face.NoHuman{})
	if err != nil {
		t.Fatal(err)
	}
	a.Run(context.Background(), "go", nil)
	a.Close()
	bash, _ := os.ReadFile(filepath.Join(dir, "bash.log"))
	if s := string(bash); strings.Contains(s, "echo hi") || !strings.Contains(s, "echo commit now") || !strings.Contains(s, `"tool_use_id":"compound"`) {
		t.Errorf("the Bash hook read:\n%s", s)
	}
	edit, _ := os.ReadFile(filepath.Join(dir, "edit.log"))
	if s := string(edit); !strings.Contains(s, "a.py") || strings.Contains(s, "b.txt") {
		t.Errorf("the Edit hook read:\n%s", s)
	}
}

// An async hook is not waited for and decides nothing: the call it would block (exit
// 2) runs, and talks to the hook while both run (through fifos, which a waited-for
// hook would never read in time). once is named as not supported; asyncRewake (here
// exiting 0, which wakes nothing) is not.
func TestClaudeHookAsync(t *testing.T) {
	dir := project(t, "", map[string]string{})
	for _, f := range []string{"to-hook", "from-hook"} {
		if err := syscall.Mkfifo(filepath.Join(dir, f), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	writeClaudeSettings(t, dir, map[string]any{"hooks": map[string]any{
		"PreToolUse": []any{map[string]any{"matcher": "Bash", "hooks": []any{map[string]any{"type": "command", "async": true, "timeout": 20,
			"command": `cat >/dev/null; read x < to-hook; echo "hook got $x" > from-hook; echo no >&2; exit 2`}}}},
		"Stop": []any{map[string]any{"hooks": []any{
			map[string]any{"type": "command", "asyncRewake": true, "command": "true"},
			map[string]any{"type": "command", "once": true, "command": "true"}}}},
	}})
	p := scripted.New(
		scripted.Step{Calls: []scripted.Call{{ID: "c", Name: "bash", Input: `{"command":"echo go > to-hook; cat from-hook","timeout":20}`}}},
		scripted.Step{Text: "done"},
	)
	rec := &recorder{}
	a, err := newStarted(Options{Cwd: dir, LLM: p, PermissionMode: "yolo"}, rec.sink, face.NoHuman{})
	if err != nil {
		t.Fatal(err)
	}
	a.Run(context.Background(), "go", nil)
	a.Close()
	if got := rec.finished()["c"]; !strings.Contains(got, "hook got go") {
		t.Errorf("the call ended with %q", got)
	}
	var rewake, once bool
	for _, n := range rec.notices() {
		rewake = rewake || strings.Contains(n, "asyncRewake")
		once = once || strings.Contains(n, "once")
	}
	if rewake || !once {
		t.Errorf("asyncRewake said %v, once said %v: %q", rewake, once, rec.notices())
	}
}
