package hook

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/gantry-dev/gantry/internal/contain"
	"github.com/gantry-dev/gantry/internal/testenv"
)

// A hook that sleeps past its timeout is killed with its whole process group (even
// members that ignore SIGTERM), reported as a warning, and Run returns promptly.
func TestTimeoutKillsGroupAndWarns(t *testing.T) {
	t.Parallel()
	for _, body := range []string{
		`echo $$ > pid; sleep 100 & sleep 100`,
		`trap '' TERM; echo $$ > pid; sleep 100 & sleep 100`,
	} {
		dir := t.TempDir()
		r := NewRunner(hooks(PreToolUse, "", cmd(body, 1, "")), base(dir))
		start := time.Now()
		o := r.Run(t.Context(), PreToolUse, "bash", nil)
		within(t, start, 3*time.Second)
		if o.Block || len(o.Warnings) != 1 || !strings.Contains(o.Warnings[0], "did not finish within its timeout of 1s and was stopped") {
			t.Errorf("%q: got %+v", body, o)
		}
		assertGroupGone(t, filepath.Join(dir, "pid"))
	}
}

// With onFailure: block a timed-out hook blocks.
func TestTimeoutBlocksWithOnFailureBlock(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	r := NewRunner(hooks(PreToolUse, "", cmd(`echo $$ > pid; sleep 100`, 1, "block")), base(dir))
	start := time.Now()
	o := r.Run(t.Context(), PreToolUse, "bash", nil)
	within(t, start, 3*time.Second)
	if !o.Block || !strings.Contains(o.Reason, "timeout of 1s") || !strings.Contains(o.Reason, "onFailure is block") {
		t.Fatalf("got %+v", o)
	}
	assertGroupGone(t, filepath.Join(dir, "pid"))
}

// A grandchild that keeps stdout or stderr open does not hang Run, nor outlive it
// (it was not detached); what the hook said before exiting still counts.
func TestGrandchildHoldingOutputDoesNotHang(t *testing.T) {
	t.Parallel()
	for _, body := range []string{
		`echo $$ > pid; sleep 100 & echo '{"decision":"block","reason":"held"}'`,
		`echo $$ > pid; (sleep 100 >&2 &); echo '{"decision":"block","reason":"held"}'`,
		`echo $$ > pid; sleep 100 & disown; echo '{"decision":"block","reason":"held"}'`,
	} {
		dir := t.TempDir()
		r := NewRunner(hooks(PreToolUse, "", cmd(body, 20, "")), base(dir))
		start := time.Now()
		o := r.Run(t.Context(), PreToolUse, "bash", nil)
		within(t, start, 3*time.Second)
		if !o.Block || o.Reason != "held" {
			t.Errorf("%q: got %+v", body, o)
		}
		assertGroupGone(t, filepath.Join(dir, "pid"))
	}
}

// A hook that never reads a large stdin does not hang Run.
func TestUnreadStdinDoesNotHang(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	r := NewRunner(hooks(PostToolUse, "", cmd(`echo $$ > pid; sleep 100 & exit 0`, 20, "")), base(dir))
	start := time.Now()
	o := r.Run(t.Context(), PostToolUse, "bash", map[string]any{"tool_response": strings.Repeat("x", 1<<20)})
	within(t, start, 3*time.Second)
	if o.Block || len(o.Warnings) != 0 {
		t.Errorf("got %+v", o)
	}
	assertGroupGone(t, filepath.Join(dir, "pid"))
}

// Cancelling the context stops every running hook and blocks.
func TestCancelStopsHooks(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	r := NewRunner(hooks(PreToolUse, "", cmd(`echo $$ > pid; sleep 100`, 20, ""), cmd(`echo $$ > pid2; sleep 100`, 20, "")), base(dir))
	ctx, cancel := context.WithCancel(t.Context())
	defer cancel()
	ran := make(chan Outcome, 1)
	go func() { ran <- r.Run(ctx, PreToolUse, "bash", nil) }()
	// Cancel once both hooks run (they have written their pids), not after a guess.
	for _, f := range []string{"pid", "pid2"} {
		waitFor(t, "a hook to write "+f, func() bool {
			b, err := os.ReadFile(filepath.Join(dir, f))
			return err == nil && strings.HasSuffix(string(b), "\n")
		})
	}
	start := time.Now()
	cancel()
	o := testenv.Recv(t, ran, testenv.Bound, "the cancelled hooks to end")
	within(t, start, 3*time.Second)
	if !o.Block || !strings.Contains(o.Reason, "cancelled") {
		t.Errorf("got %+v", o)
	}
	assertGroupGone(t, filepath.Join(dir, "pid"))
	assertGroupGone(t, filepath.Join(dir, "pid2"))

	o = r.Run(ctx, PreToolUse, "bash", nil) // already cancelled: nothing starts
	if !o.Block || !strings.Contains(o.Reason, "did not run") {
		t.Errorf("cancelled before: got %+v", o)
	}
}

// Even a grandchild that left the hook's group (setsid) and holds stdout does not hang
// Run: the pipes are read for a moment more, then let go.
func TestEscapedGrandchildDoesNotHang(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	r := NewRunner(hooks(PreToolUse, "", cmd(`setsid sleep 100 & echo $! > gpid; echo '{"reason":"r","decision":"block"}'`, 20, "")), base(dir))
	start := time.Now()
	o := r.Run(t.Context(), PreToolUse, "bash", nil)
	within(t, start, 3*time.Second)
	pid, err := strconv.Atoi(strings.TrimSpace(readFile(t, filepath.Join(dir, "gpid"))))
	if err != nil {
		t.Fatal(err)
	}
	_ = syscall.Kill(pid, syscall.SIGKILL) // it is out of reach of gantry by design
	if !o.Block || o.Reason != "r" {
		t.Errorf("got %+v", o)
	}
}

// A settings file's hook may leave processes running on purpose: one started with
// nohup (SIGHUP ignored, still in the hook's group, even holding its stdout), one that
// traps SIGHUP, and one started with setsid (a session of its own) live on after the
// hook, and Run does not wait for them; a plain background child dies with the hook.
// What lives, and where, is read from /proc.
func TestDetachedChildrenOutliveTheHook(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	r := NewRunner(hooks(SessionStart, "", cmd(`echo $$ > pid
nohup sleep 311 & echo $! > nohup.pid
(trap '' HUP; exec sleep 312) >/dev/null 2>&1 & echo $! > trap.pid
setsid sleep 313 >/dev/null 2>&1 & echo $! > setsid.pid
sleep 314 >/dev/null 2>&1 & echo $! > plain.pid
echo started`, 20, "")), base(dir))
	start := time.Now()
	o := r.Run(t.Context(), SessionStart, "startup", nil)
	within(t, start, 5*time.Second)
	pids := map[string]int{}
	for _, name := range []string{"pid", "nohup.pid", "trap.pid", "setsid.pid", "plain.pid"} {
		pids[name] = pidIn(t, filepath.Join(dir, name))
	}
	t.Cleanup(func() {
		for _, name := range []string{"nohup.pid", "trap.pid", "setsid.pid"} {
			killAndWait(t, pids[name])
		}
	})
	if o.Block || len(o.Warnings) != 0 || o.AdditionalContext != "started" {
		t.Fatalf("got %+v", o)
	}
	hookGroup := pids["pid"]
	for _, name := range []string{"nohup.pid", "trap.pid"} {
		if st, group := procState(pids[name]); st == 0 || st == 'Z' || group != hookGroup {
			t.Errorf("%s: state %q, group %d (the hook's is %d): it did not live on in the hook's group", name, st, group, hookGroup)
		}
	}
	if st, group := procState(pids["setsid.pid"]); st == 0 || st == 'Z' || group == hookGroup {
		t.Errorf("the setsid child: state %q, group %d", st, group)
	}
	if st, _ := procState(pids["plain.pid"]); st != 0 && st != 'Z' {
		t.Errorf("the plain background child is still alive (state %q)", st)
	}
}

// At its timeout a settings file's hook is killed with its whole group, what it
// started with nohup included.
func TestTimeoutKillsWhatNohupStarted(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	r := NewRunner(hooks(PreToolUse, "", cmd(`echo $$ > pid; nohup sleep 321 >/dev/null 2>&1 & echo $! > nohup.pid; sleep 100`, 1, "")), base(dir))
	o := r.Run(t.Context(), PreToolUse, "bash", nil)
	pid := pidIn(t, filepath.Join(dir, "nohup.pid"))
	t.Cleanup(func() { killAndWait(t, pid) })
	if len(o.Warnings) != 1 || !strings.Contains(o.Warnings[0], "timeout") {
		t.Fatalf("got %+v", o)
	}
	if st, _ := procState(pid); st != 0 && st != 'Z' {
		t.Errorf("the nohup child outlived the hook's timeout (state %q)", st)
	}
	assertGroupGone(t, filepath.Join(dir, "pid"))
}

// pidIn reads the pid a hook wrote to p.
func pidIn(t *testing.T, p string) int {
	t.Helper()
	pid, err := strconv.Atoi(strings.TrimSpace(readFile(t, p)))
	if err != nil {
		t.Fatal(err)
	}
	return pid
}

// procState reads the state and process group of pid from /proc (state 0: no such
// process).
func procState(pid int) (state byte, pgid int) {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return 0, 0
	}
	i := bytes.LastIndexByte(b, ')')
	f := strings.Fields(string(b[i+1:]))
	if i < 0 || len(f) < 3 {
		return 0, 0
	}
	g, _ := strconv.Atoi(f[2])
	return f[0][0], g
}

// killAndWait kills pid, a sleep the test let live on, and waits until it is gone or
// a zombie, so that the test leaves nothing behind. A pid that is no longer a sleep is
// left alone.
func killAndWait(t *testing.T, pid int) {
	t.Helper()
	if b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/cmdline"); pid <= 1 || err != nil || !bytes.HasPrefix(b, []byte("sleep\x00")) {
		return
	}
	_ = syscall.Kill(pid, syscall.SIGKILL)
	deadline := time.Now().Add(5 * time.Second)
	for st, _ := procState(pid); st != 0 && st != 'Z' && st != 'X'; st, _ = procState(pid) {
		if time.Now().After(deadline) {
			t.Errorf("pid %d did not die", pid)
			return
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// A hook the model registered is contained like a bash call: what it started in the
// background, setsid included, dies when the hook ends. (A settings file's hook keeps
// Claude Code's behaviour; see TestEscapedGrandchildDoesNotHang.)
func TestSessionHookLeavesNothing(t *testing.T) {
	t.Parallel()
	if m, why := contain.Status(); m == contain.ModeGroup {
		t.Skipf("no PID namespaces here (%s)", why)
	}
	dir := t.TempDir()
	r := NewRunner(nil, base(dir))
	// The host pid of the escaped sleep: cut's parent is the sh that then execs sleep.
	if _, err := r.Register(PreToolUse, `setsid sh -c 'cut -d" " -f4 /proc/self/stat > gpid; exec sleep 331' & while [ ! -s gpid ]; do :; done; echo ok`, 20*time.Second); err != nil {
		t.Fatal(err)
	}
	o := r.Run(t.Context(), PreToolUse, "bash", nil)
	if o.Block {
		t.Fatalf("got %+v", o)
	}
	pid, err := strconv.Atoi(strings.TrimSpace(readFile(t, filepath.Join(dir, "gpid"))))
	if err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(time.Second)
	for syscall.Kill(pid, 0) == nil && !zombie(pid) {
		if time.Now().After(deadline) {
			_ = syscall.Kill(pid, syscall.SIGKILL)
			t.Fatalf("the hook's setsid sleep (pid %d) outlived it", pid)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// zombie tells whether pid has exited and waits only to be reaped.
func zombie(pid int) bool {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return true
	}
	i := bytes.LastIndexByte(b, ')')
	return i > 0 && i+2 < len(b) && (b[i+2] == 'Z' || b[i+2] == 'X')
}
