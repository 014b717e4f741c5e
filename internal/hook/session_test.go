package hook

import (
	"strings"
	"testing"
	"time"

	"github.com/gantry-dev/gantry/internal/testenv"
)

// Session hooks are registered with stable indexes, listed after the settings' hooks,
// run after them, and removed by event and index.
func TestSessionHooksRegisterListRemove(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	r := NewRunner(hooks(PreToolUse, "bash", cmd(`echo '{"reason":"config","decision":"block"}'`, 30, "block")), base(dir))
	for i, c := range []string{`echo '{"reason":"one","decision":"block"}'`, `echo '{"reason":"two","decision":"block"}'`} {
		n, err := r.Register(PreToolUse, c, 0)
		if err != nil || n != i+1 {
			t.Fatalf("Register %q = %d, %v", c, n, err)
		}
	}
	if n, _ := r.Register(Stop, "true", 5*time.Second); n != 1 {
		t.Errorf("the first Stop hook got index %d", n)
	}

	got := r.List()
	want := []Entry{
		{Source: SourceConfig, Event: PreToolUse, Matcher: "bash", Type: TypeCommand, Command: `echo '{"reason":"config","decision":"block"}'`, Timeout: 30 * time.Second, OnFailure: "block"},
		{Source: SourceSession, Event: PreToolUse, Type: TypeCommand, Command: `echo '{"reason":"one","decision":"block"}'`, Timeout: DefaultTimeout, OnFailure: "warn", Index: 1},
		{Source: SourceSession, Event: PreToolUse, Type: TypeCommand, Command: `echo '{"reason":"two","decision":"block"}'`, Timeout: DefaultTimeout, OnFailure: "warn", Index: 2},
		{Source: SourceSession, Event: Stop, Type: TypeCommand, Command: "true", Timeout: 5 * time.Second, OnFailure: "warn", Index: 1},
	}
	if len(got) != len(want) {
		t.Fatalf("List = %+v", got)
	}
	for i := range want {
		if got[i] != want[i] {
			t.Errorf("List[%d] = %+v, want %+v", i, got[i], want[i])
		}
	}

	// They run at once; what they say is folded in this order.
	if o := r.Run(t.Context(), PreToolUse, "bash", nil); o.Reason != "config\none\ntwo" {
		t.Errorf("folded %q", o.Reason)
	}

	if err := r.Remove(PreToolUse, 1); err != nil {
		t.Fatal(err)
	}
	if n, _ := r.Register(PreToolUse, "echo three", 0); n != 3 {
		t.Errorf("an index was given twice: %d", n)
	}
	var cmds []string
	for _, e := range r.List() {
		if e.Event == PreToolUse {
			cmds = append(cmds, e.Command)
		}
	}
	if strings.Join(cmds, "|") != `echo '{"reason":"config","decision":"block"}'|echo '{"reason":"two","decision":"block"}'|echo three` {
		t.Errorf("after Remove: %q", cmds)
	}
}

// Register and Remove refuse what they cannot do, in sentences that say why.
func TestSessionHookErrors(t *testing.T) {
	t.Parallel()
	r := NewRunner(hooks(PreToolUse, "", cmd("true", 0, "")), base(t.TempDir()))
	for _, c := range []struct {
		event, command string
		timeout        time.Duration
		want           string
	}{
		{"BeforeTool", "true", 0, "not a hook event"},
		{Stop, "  ", 0, "must not be empty"},
		{Stop, "true", -time.Second, "must not be negative"},
	} {
		if _, err := r.Register(c.event, c.command, c.timeout); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("Register(%q, %q, %v) = %v, want %q", c.event, c.command, c.timeout, err, c.want)
		}
	}
	if err := r.Remove(PreToolUse, 0); err == nil || !strings.Contains(err.Error(), "settings files cannot be removed") {
		t.Errorf("Remove of a config hook: %v", err)
	}
	if _, err := r.Register(PreToolUse, "true", 0); err != nil {
		t.Fatal(err)
	}
	if err := r.Remove(PreToolUse, 7); err == nil || !strings.Contains(err.Error(), "its session hooks are 1") {
		t.Errorf("Remove of a missing index: %v", err)
	}
	if err := r.Remove("Later", 1); err == nil || !strings.Contains(err.Error(), "not a hook event") {
		t.Errorf("Remove of a bad event: %v", err)
	}
}

// Help states the protocol.
func TestHelp(t *testing.T) {
	t.Parallel()
	h := Help()
	for _, s := range []string{"PreToolUse", "Exit status", "stderr is the reason", "updatedInput", "additionalContext", "onFailure: block", "60 seconds"} {
		if !strings.Contains(h, s) {
			t.Errorf("Help lacks %q", s)
		}
	}
}

// Runs, registrations and listings may happen at once (go test -race).
func TestRunnerIsSafeForConcurrentUse(t *testing.T) {
	t.Parallel()
	r := NewRunner(hooks(PostToolUse, "", cmd("true", 0, "")), base(t.TempDir()))
	done := make(chan struct{})
	for range 4 {
		go func() {
			defer func() { done <- struct{}{} }()
			n, err := r.Register(PostToolUse, "true", 0)
			if err != nil {
				t.Error(err)
				return
			}
			r.Run(t.Context(), PostToolUse, "bash", nil)
			_ = r.List()
			if err := r.Remove(PostToolUse, n); err != nil {
				t.Error(err)
			}
		}()
	}
	for range 4 {
		testenv.Recv(t, done, testenv.Bound, "a concurrent add, run and remove")
	}
	if n := len(r.List()); n != 1 {
		t.Errorf("%d hooks left", n)
	}
}
