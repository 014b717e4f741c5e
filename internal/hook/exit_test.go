package hook

import (
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
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

// The hooks of one event run at once: each of two hooks waits for the other on a pair
// of FIFOs (opening one blocks until its other end is opened), so neither can end
// unless both run together.
func TestHooksRunAtOnce(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	for _, name := range []string{"ab", "ba"} {
		if err := syscall.Mkfifo(filepath.Join(dir, name), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	start := time.Now()
	o := NewRunner(hooks(PreToolUse, "",
		cmd(`echo from-a > ab; read x < ba; echo "$x" > a.got`, 10, "block"),
		cmd(`read x < ab; echo from-b > ba; echo "$x" > b.got`, 10, "block"),
	), base(dir)).Run(t.Context(), PreToolUse, "bash", nil)
	within(t, start, 5*time.Second)
	if o.Block || len(o.Warnings) != 0 {
		t.Fatalf("got %+v", o)
	}
	if a, b := readFile(t, filepath.Join(dir, "a.got")), readFile(t, filepath.Join(dir, "b.got")); a != "from-b\n" || b != "from-a\n" {
		t.Errorf("a read %q, b read %q", a, b)
	}
}

// A block among three hooks wins, and the other two still run to their end.
func TestBlockAmongThreeOthersStillRun(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	o := NewRunner(hooks(UserPromptSubmit, "",
		cmd(`echo '{"additionalContext":"from one"}'; touch one`, 0, ""),
		cmd(`echo no >&2; exit 2`, 0, ""),
		cmd(`touch three; echo '{"decision":"approve"}'`, 0, ""),
	), base(dir)).Run(t.Context(), UserPromptSubmit, "", map[string]any{"prompt": "hi"})
	if !o.Block || o.Reason != "no" || o.Allow || o.AdditionalContext != "from one" {
		t.Fatalf("got %+v", o)
	}
	for _, f := range []string{"one", "three"} {
		if !fileExists(filepath.Join(dir, f)) {
			t.Errorf("hook %s did not run", f)
		}
	}
}

// What several hooks say is folded in their configured order, not in the order they
// end: the first hook here ends last (it waits for the second to write the FIFO), yet
// its reason comes first, and of two updatedInputs the last hook's wins.
func TestFoldFollowsConfiguredOrder(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	if err := syscall.Mkfifo(filepath.Join(dir, "done"), 0o600); err != nil {
		t.Fatal(err)
	}
	o := NewRunner(hooks(PreToolUse, "",
		cmd(`read x < done; echo '{"decision":"block","reason":"first","updatedInput":{"command":"one"}}'`, 10, ""),
		cmd(`echo '{"decision":"block","reason":"second","updatedInput":{"command":"two"}}' ; echo > done`, 10, ""),
	), base(dir)).Run(t.Context(), PreToolUse, "bash", nil)
	if !o.Block || o.Reason != "first\nsecond" || string(o.UpdatedInput) != `{"command":"two"}` {
		t.Fatalf("got %+v (updatedInput %s)", o, o.UpdatedInput)
	}
}

// A hook with a statusMessage (Claude Code's spinner line) is named by it in what
// gantry says of it, with its command.
func TestStatusMessageNamesTheHook(t *testing.T) {
	t.Parallel()
	h := cmd("echo oops >&2; exit 1", 0, "")
	h.StatusMessage = "Formatting the file"
	o := NewRunner(hooks(PostToolUse, "", h), base(t.TempDir())).Run(t.Context(), PostToolUse, "bash", nil)
	if len(o.Warnings) != 1 || !strings.Contains(o.Warnings[0], "PostToolUse hook \"Formatting the file\" (`echo oops >&2; exit 1`) exited with status 1") {
		t.Errorf("warnings %q", o.Warnings)
	}
}
