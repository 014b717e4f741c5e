package hook

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/gantry-dev/gantry/internal/config"
	"github.com/gantry-dev/gantry/internal/testenv"
)

// declaring is the body of a hook that declares itself async with asyncTimeout ms,
// writes its group's id to pid, waits on the FIFO gate and writes what it read there
// to finished.
func declaring(ms int, gate string) string {
	return `cat >/dev/null; echo $$ > pid; echo '{"async": true, "asyncTimeout": ` + strconv.Itoa(ms) + `}'; read x < ` + gate + `; echo "$x" > finished`
}

// gateIn makes the FIFO name in dir, which a hook reads from until the test writes.
func gateIn(t *testing.T, dir, name string) string {
	t.Helper()
	p := filepath.Join(dir, name)
	if err := mkfifo(p); err != nil {
		t.Fatal(err)
	}
	return p
}

// A hook not configured async that declares itself async on its first line is not
// waited for: Run returns while it is held on a FIFO, with nothing from it, and the
// turn's context, cancelled afterwards, no longer stops it: it runs to its end.
func TestDeclaredAsyncIsNotWaitedFor(t *testing.T) {
	dir := t.TempDir()
	gate := gateIn(t, dir, "gate")
	r := NewRunner(hooks(SessionStart, "", cmd(declaring(60000, "gate"), 0, "block")), base(dir))
	defer r.Close()
	ctx, cancel := context.WithCancel(context.Background())
	o := r.Run(ctx, SessionStart, "", nil)
	cancel()
	if o.Block || len(o.Warnings) > 0 || o.AdditionalContext != "" {
		t.Errorf("a hook that declared itself async decided the event: %+v", o)
	}
	if fileExists(filepath.Join(dir, "finished")) {
		t.Fatal("Run waited for the hook to finish")
	}
	if err := os.WriteFile(gate, []byte("on\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	testenv.Wait(t, &r.bg.wg, testenv.Bound, "the async hooks")
	if got := strings.TrimSpace(readFile(t, filepath.Join(dir, "finished"))); got != "on" {
		t.Errorf("the hook wrote %q after it was detached, want on", got)
	}
}

// Close stops a hook that declared itself async, with its whole process group.
func TestDeclaredAsyncStoppedByClose(t *testing.T) {
	dir := t.TempDir()
	gateIn(t, dir, "never")
	r := NewRunner(hooks(PostToolUse, "", cmd(declaring(60000, "never"), 0, "")), base(dir))
	o := r.Run(context.Background(), PostToolUse, "bash", map[string]any{"tool_name": "bash"})
	if o.Block || len(o.Warnings) > 0 {
		t.Errorf("got %+v", o)
	}
	r.Close()
	assertGroupGone(t, filepath.Join(dir, "pid"))
	if fileExists(filepath.Join(dir, "finished")) {
		t.Error("the hook ran to its end")
	}
}

// Once detached, a hook runs for its asyncTimeout, not its timeout: one that never
// ends is stopped with its group when the asyncTimeout passes, without Close.
func TestDeclaredAsyncTimeout(t *testing.T) {
	dir := t.TempDir()
	gateIn(t, dir, "never")
	r := NewRunner(hooks(PostToolUse, "", cmd(declaring(200, "never"), 3600, "")), base(dir))
	defer r.Close()
	r.Run(context.Background(), PostToolUse, "bash", map[string]any{"tool_name": "bash"})
	testenv.Wait(t, &r.bg.wg, testenv.Bound, "the async hook") // ends only because the asyncTimeout stops the hook
	assertGroupGone(t, filepath.Join(dir, "pid"))
}

// A first line that is not JSON, or a JSON object whose async is not true, declares
// nothing: stdout is read whole as before, and Run waits for the hook.
func TestNoDeclaration(t *testing.T) {
	dir := t.TempDir()
	for _, tc := range []struct{ body, context, reason string }{
		{body: `echo plain; echo '{"async": true}'`, context: "plain\n{\"async\": true}"},
		{body: `echo '{"async": false, "decision": "block", "reason": "kept"}'`, reason: "kept"},
		{body: `printf '{"async": false,\n "decision": "block", "reason": "two lines"}'`, reason: "two lines"},
	} {
		r := NewRunner(hooks(UserPromptSubmit, "", cmd(`cat >/dev/null; `+tc.body, 0, "")), base(dir))
		o := r.Run(context.Background(), UserPromptSubmit, "", map[string]any{"prompt": "hi"})
		r.Close()
		if o.AdditionalContext != tc.context || o.Reason != tc.reason || o.Block != (tc.reason != "") || len(o.Warnings) > 0 {
			t.Errorf("%s: got %+v", tc.body, o)
		}
	}
}

// A hook that declares itself async and exits at once decides nothing either, even
// with exit status 2.
func TestDeclaredAsyncEndedAtOnce(t *testing.T) {
	dir := t.TempDir()
	r := NewRunner(hooks(PreToolUse, "", cmd(`cat >/dev/null; echo '{"async":true}'; echo no >&2; exit 2`, 0, "")), base(dir))
	defer r.Close()
	if o := r.Run(context.Background(), PreToolUse, "bash", nil); o.Block || len(o.Warnings) > 0 {
		t.Errorf("got %+v", o)
	}
}

// The declaration is read as Claude Code writes it: asyncTimeout in milliseconds,
// 15 s when it is not given.
func TestAsyncDeclaration(t *testing.T) {
	for line, want := range map[string]time.Duration{
		`{"async": true, "asyncTimeout": 180000}`: 180 * time.Second,
		` {"async":true} `:                        DefaultAsyncTimeout,
		`{"async": true, "asyncTimeout": 0}`:      DefaultAsyncTimeout,
	} {
		if got, ok := asyncDeclaration([]byte(line)); !ok || got != want {
			t.Errorf("%s: got %v, %v", line, got, ok)
		}
	}
	for _, line := range []string{`{"async": false}`, `{"async": "yes"}`, `async`, `{"async": true`, ``} {
		if _, ok := asyncDeclaration([]byte(line)); ok {
			t.Errorf("%q was read as a declaration", line)
		}
	}
}

// An asyncRewake hook that declares itself async still wakes the model when it exits
// 2, with its rewakeMessage and rewakeSummary, and what it wrote after the declaration.
func TestDeclaredAsyncRewake(t *testing.T) {
	dir := t.TempDir()
	gate := gateIn(t, dir, "gate")
	w := &rewakes{}
	b := base(dir)
	b.Rewake = w.add
	h := rewakeHook(`cat >/dev/null; echo '{"async": true, "asyncTimeout": 60000}'; read x < gate; echo "found $x"; exit 2`)
	h.RewakeMessage, h.RewakeSummary = "Review findings:", "Review found issues"
	r := NewRunner(hooks(Stop, "", h), b)
	defer r.Close()
	r.Run(context.Background(), Stop, "", nil)
	if err := os.WriteFile(gate, []byte("a.go\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	testenv.Wait(t, &r.bg.wg, testenv.Bound, "the async hooks")
	if len(w.got) != 1 || w.got[0].Text != "found a.go" || w.got[0].Message != "Review findings:" || w.got[0].Summary != "Review found issues" {
		t.Errorf("rewakes %+v", w.got)
	}
}

// laters collects what a Runner's async hooks said when they ended.
type laters struct {
	mu  sync.Mutex
	got []Later
}

func (l *laters) add(x Later) {
	l.mu.Lock()
	l.got = append(l.got, x)
	l.mu.Unlock()
}

// What an async hook prints in JSON when it ends — a configured async hook's, and a
// hook's that declared itself async, after its declaration — goes to Base.Later: its
// additionalContext and systemMessage, from its first line that is a JSON object, as
// Claude Code reads it. Plain text, a decision and a failure go nowhere.
func TestAsyncOutputLater(t *testing.T) {
	dir := t.TempDir()
	gate := gateIn(t, dir, "gate")
	l := &laters{}
	b := base(dir)
	b.Later = l.add
	async := func(command string) config.Hook { return config.Hook{Type: "command", Command: command, Async: true} }
	r := NewRunner(hooks(PostToolUse, "",
		async(`cat >/dev/null; echo '{"systemMessage": "lint ran", "hookSpecificOutput": {"hookEventName": "PostToolUse", "additionalContext": "a.go is clean"}}'`),
		async(`cat >/dev/null; echo 'plain text'`),
		async(`cat >/dev/null; echo '{"decision": "block", "reason": "late"}'`),
		async(`cat >/dev/null; echo '{"additionalContext": "failed"}'; exit 1`),
		cmd(`cat >/dev/null; echo '{"async": true}'; read x < gate; echo working; echo "{\"additionalContext\": \"review: $x\"}"; echo '{"additionalContext": "second"}'`, 0, ""),
	), b)
	defer r.Close()
	o := r.Run(context.Background(), PostToolUse, "bash", map[string]any{"tool_name": "bash"})
	if o.Block || o.AdditionalContext != "" || len(o.Warnings) > 0 {
		t.Errorf("async hooks decided the event: %+v", o)
	}
	if err := os.WriteFile(gate, []byte("fine\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	testenv.Wait(t, &r.bg.wg, testenv.Bound, "the async hooks")
	var got []string
	for _, x := range l.got {
		got = append(got, x.Context+"|"+x.Message)
		if x.Event != PostToolUse || x.Hook == "" {
			t.Errorf("later %+v", x)
		}
	}
	slices.Sort(got)
	if want := []string{"a.go is clean|lint ran", "review: fine|"}; !slices.Equal(got, want) {
		t.Errorf("later got %q, want %q", got, want)
	}
}

// A hook that declares itself async once Close has begun is stopped at once: nothing
// is left running for a Close that has already waited.
func TestDeclaredAsyncAfterClose(t *testing.T) {
	dir := t.TempDir()
	gateIn(t, dir, "never")
	r := NewRunner(hooks(PostToolUse, "", cmd(declaring(60000, "never"), 0, "")), base(dir))
	r.Close()
	r.Run(context.Background(), PostToolUse, "bash", map[string]any{"tool_name": "bash"})
	assertGroupGone(t, filepath.Join(dir, "pid"))
}
