package hook

import (
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"
)

// The hook's stdin is one JSON object with the documented fields.
func TestStdinHasDocumentedFields(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	r := NewRunner(hooks(PreToolUse, "bash", cmd(`cat > stdin.json`, 0, "")), base(dir))
	o := r.Run(t.Context(), PreToolUse, "bash", map[string]any{
		"tool_name":       "bash",
		"tool_input":      map[string]any{"command": "ls"},
		"tool_use_id":     "call_1",
		"hook_event_name": "forged", // the runner sets it
	})
	if o.Block || len(o.Warnings) != 0 {
		t.Fatalf("got %+v", o)
	}
	var in map[string]any
	if err := json.Unmarshal([]byte(readFile(t, filepath.Join(dir, "stdin.json"))), &in); err != nil {
		t.Fatal(err)
	}
	want := map[string]any{
		"session_id":      "s-123",
		"cwd":             dir,
		"hook_event_name": "PreToolUse",
		"permission_mode": "accept-edits",
		"transcript_path": filepath.Join(dir, "transcript.jsonl"),
		"tool_name":       "bash",
		"tool_use_id":     "call_1",
	}
	for k, v := range want {
		if in[k] != v {
			t.Errorf("%s = %v, want %v", k, in[k], v)
		}
	}
	if ti, _ := in["tool_input"].(map[string]any); ti["command"] != "ls" {
		t.Errorf("tool_input = %v", in["tool_input"])
	}
}

// Fields that cannot be written as JSON are reported, and nothing runs.
func TestUnmarshalableFields(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	r := NewRunner(hooks(PostToolUse, "", cmd("touch ran", 0, "")), base(dir))
	o := r.Run(t.Context(), PostToolUse, "bash", map[string]any{"tool_response": func() {}})
	if len(o.Warnings) != 1 || !strings.Contains(o.Warnings[0], "could not be written as JSON") {
		t.Errorf("got %+v", o)
	}
	if fileExists(filepath.Join(dir, "ran")) {
		t.Error("the hook ran")
	}
}

// The hook runs in the session's directory with the project and session in its
// environment.
func TestEnvAndCwd(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	body := `printf '%s\n' "$PWD" "$GANTRY_PROJECT_DIR" "$CLAUDE_PROJECT_DIR" "$GANTRY_SESSION_ID" "$CLAUDE_SESSION_ID" "$GANTRY_HOOK_EVENT" "$GANTRY" "${CLAUDE_ENV_FILE-unset}" > env.txt`
	NewRunner(hooks(Notification, "", cmd(body, 0, "")), base(dir)).Run(t.Context(), Notification, "", map[string]any{"message": "hi"})
	got := strings.Split(strings.TrimSpace(readFile(t, filepath.Join(dir, "env.txt"))), "\n")
	want := []string{dir, dir, dir, "s-123", "s-123", "Notification", "1", "unset"}
	if strings.Join(got, "|") != strings.Join(want, "|") {
		t.Errorf("got %q, want %q", got, want)
	}
}
