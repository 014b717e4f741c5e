package hook

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// Exit 2 blocks, with stderr (trimmed) as the reason.
func TestExit2BlocksWithStderrReason(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	guard := script(t, dir, "guard.sh", `echo "  rm is not allowed here  " >&2; exit 2`)
	o := NewRunner(hooks(PreToolUse, "bash", cmd(guard, 0, "")), base(dir)).
		Run(t.Context(), PreToolUse, "bash", map[string]any{"tool_name": "bash"})
	if !o.Block || o.Reason != "rm is not allowed here" || len(o.Warnings) != 0 {
		t.Fatalf("got %+v", o)
	}
}

// Exit 2 with nothing on stderr blocks with a sentence naming the hook.
func TestExit2WithoutStderrGivesDefaultReason(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	o := NewRunner(hooks(Stop, "", cmd("exit 2", 0, "")), base(dir)).Run(t.Context(), Stop, "", nil)
	if !o.Block || !strings.Contains(o.Reason, "Stop hook `exit 2` blocked this") {
		t.Fatalf("got %+v", o)
	}
}

// Exit 1 is a warning and the action goes on; the next hook still runs.
func TestExit1Warns(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	o := NewRunner(hooks(PostToolUse, "", cmd("echo oops >&2; exit 1", 0, ""), cmd("touch ran", 0, "")), base(dir)).
		Run(t.Context(), PostToolUse, "bash", nil)
	if o.Block || len(o.Warnings) != 1 {
		t.Fatalf("got %+v", o)
	}
	if w := o.Warnings[0]; !strings.Contains(w, "exited with status 1 (stderr: oops)") {
		t.Errorf("warning %q", w)
	}
	if _, err := os.Stat(filepath.Join(dir, "ran")); err != nil {
		t.Error("the second hook did not run")
	}
}

// Exit 1 with onFailure: block blocks, and says why.
func TestExit1BlocksWithOnFailureBlock(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	o := NewRunner(hooks(PreToolUse, "", cmd("exit 1", 0, "block")), base(dir)).Run(t.Context(), PreToolUse, "bash", nil)
	if !o.Block || !strings.Contains(o.Reason, "exited with status 1") || !strings.Contains(o.Reason, "onFailure is block") {
		t.Fatalf("got %+v", o)
	}
}

// A hook that cannot start (its working directory is gone) fails like any other.
func TestHookThatCannotStart(t *testing.T) {
	t.Parallel()
	b := base(filepath.Join(t.TempDir(), "missing"))
	o := NewRunner(hooks(PreToolUse, "", cmd("true", 0, "")), b).Run(t.Context(), PreToolUse, "bash", nil)
	if o.Block || len(o.Warnings) != 1 || !strings.Contains(o.Warnings[0], "could not be started") {
		t.Fatalf("got %+v", o)
	}
}

// Hooks run in order and the first block stops the rest.
func TestFirstBlockStopsTheRest(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	o := NewRunner(hooks(UserPromptSubmit, "",
		cmd("echo one >> order", 0, ""),
		cmd("echo two >> order; echo no >&2; exit 2", 0, ""),
		cmd("echo three >> order", 0, ""),
	), base(dir)).Run(t.Context(), UserPromptSubmit, "", map[string]any{"prompt": "hi"})
	if !o.Block || o.Reason != "no" {
		t.Fatalf("got %+v", o)
	}
	if got := readFile(t, filepath.Join(dir, "order")); got != "one\ntwo\n" {
		t.Errorf("ran %q", got)
	}
}
