package fs

import (
	"encoding/json"
	"testing"

	"github.com/gantry-dev/gantry/internal/tool"
)

// A hook's updatedInput for Claude's Write, Edit and MultiEdit becomes the file tools'
// arguments: laid over the view it read, in Claude's names; a hook that wrote
// gantry's own names (path) is taken as it is; what has no counterpart is refused.
func TestFromClaude(t *testing.T) {
	env := tool.Env{Cwd: t.TempDir()}
	write := WriteFile(testOpts)
	view := tool.ClaudeView{Name: "Write", Input: map[string]any{"file_path": "/p/a.txt", "content": "old"}}
	for _, c := range []struct {
		t      tool.Tool
		view   tool.ClaudeView
		update string
		want   string
	}{
		{write, view, `{"content":"new"}`, `{"path":"/p/a.txt","content":"new"}`},
		{write, view, `{"file_path":"/p/b.txt"}`, `{"path":"/p/b.txt","content":"old"}`},
		{write, view, `{"path":"c.txt","content":"gantry's"}`, `{"path":"c.txt","content":"gantry's"}`},
		{EditFile(testOpts), tool.ClaudeView{Name: "Edit", Input: map[string]any{"file_path": "/p/a.txt", "old_string": "a", "new_string": "b", "replace_all": false}},
			`{"new_string":"c"}`, `{"path":"/p/a.txt","edits":[{"old":"a","new":"c"}]}`},
		{EditFile(testOpts), tool.ClaudeView{Name: "MultiEdit", Input: map[string]any{"file_path": "/p/a.txt"}},
			`{"edits":[{"old_string":"1","new_string":"2"},{"old_string":"3","new_string":"4"}]}`, `{"path":"/p/a.txt","edits":[{"old":"1","new":"2"},{"old":"3","new":"4"}]}`},
		{ReadFile(testOpts), tool.ClaudeView{Name: "Read", Input: map[string]any{"file_path": "/p/a.txt"}},
			`{"offset":10,"limit":5}`, `{"path":"/p/a.txt","start":10,"end":14}`},
	} {
		got, msg := tool.FromClaude(c.t, env, c.view, json.RawMessage(c.update))
		if msg != "" || !sameJSON(t, got, c.want) {
			t.Errorf("%s %s: got %s (%s), want %s", c.view.Name, c.update, got, msg, c.want)
		}
	}
	edit := tool.ClaudeView{Name: "Edit", Input: map[string]any{"file_path": "/p/a.txt", "old_string": "a", "new_string": "b"}}
	if _, msg := tool.FromClaude(EditFile(testOpts), env, edit, json.RawMessage(`{"replace_all":true}`)); msg == "" {
		t.Error("replace_all was taken")
	}
	if _, msg := tool.FromClaude(write, env, view, json.RawMessage(`{"content":3}`)); msg == "" {
		t.Error("a number was taken as content")
	}
	patch := tool.ClaudeView{Name: "Write", Input: map[string]any{"file_path": "/p/a.txt", "content": "x"}}
	if _, msg := tool.FromClaude(ApplyPatch(testOpts), env, patch, json.RawMessage(`{"content":"y"}`)); msg == "" {
		t.Error("apply_patch took a Claude view")
	}
}

func sameJSON(t *testing.T, got json.RawMessage, want string) bool {
	t.Helper()
	var a, b any
	if json.Unmarshal(got, &a) != nil || json.Unmarshal([]byte(want), &b) != nil {
		return false
	}
	x, _ := json.Marshal(a)
	y, _ := json.Marshal(b)
	return string(x) == string(y)
}
