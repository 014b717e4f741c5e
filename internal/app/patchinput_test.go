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

// A Claude Code hook's updatedInput for the Edit view of a file an apply_patch call
// changes cannot be put back into the patch: the call fails with the sentence that
// says so, and the file is left as it was. The same hook giving apply_patch's own
// patch field is taken.
func TestClaudeUpdatedInputForPatch(t *testing.T) {
	for _, tc := range []struct {
		update map[string]any
		want   string // in the call's result
		file   string // edit.txt afterwards
	}{
		{map[string]any{"new_string": "b\n"}, "Claude Code has no patch tool", "a\n"},
		{map[string]any{"patch": "*** Begin Patch\n*** Update File: edit.txt\n@@\n-a\n+hooked\n*** End Patch"}, "edit.txt", "hooked\n"},
	} {
		dir := project(t, "", map[string]string{"edit.txt": "a\n"})
		raw, err := json.Marshal(map[string]any{"hooks": map[string]any{"PreToolUse": []any{rewriteHook(t, "Edit", tc.update)}}})
		if err != nil {
			t.Fatal(err)
		}
		if err := os.MkdirAll(filepath.Join(dir, ".claude"), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, ".claude/settings.json"), raw, 0o644); err != nil {
			t.Fatal(err)
		}
		patch, _ := json.Marshal(map[string]string{"patch": "*** Begin Patch\n*** Update File: edit.txt\n@@\n-a\n+c\n*** End Patch"})
		p := scripted.New(
			scripted.Step{Calls: []scripted.Call{{ID: "patch", Name: "apply_patch", Input: string(patch)}}},
			scripted.Step{Text: "done"},
		)
		rec := &recorder{}
		a, err := newStarted(Options{Cwd: dir, LLM: p, PermissionMode: "yolo"}, rec.sink, face.NoHuman{})
		if err != nil {
			t.Fatal(err)
		}
		a.Run(context.Background(), "go", nil)
		a.Close()
		if got := rec.finished()["patch"]; !strings.Contains(got, tc.want) {
			t.Errorf("apply_patch with %v: %q", tc.update, got)
		}
		if b, _ := os.ReadFile(filepath.Join(dir, "edit.txt")); string(b) != tc.file {
			t.Errorf("with %v edit.txt is %q, want %q", tc.update, b, tc.file)
		}
	}
}
