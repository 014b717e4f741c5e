package shell

import (
	"fmt"
	"net"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/gantry-dev/gantry/internal/contain"
	"github.com/gantry-dev/gantry/internal/permission"
	"github.com/gantry-dev/gantry/internal/testenv"
	"github.com/gantry-dev/gantry/internal/tool"
)

// guarded is Options whose bash is held to the deny rules by the exec supervisor.
func guarded(t *testing.T, deny ...string) Options {
	t.Helper()
	if ok, why := contain.Supervisor(); !ok {
		t.Skipf("no exec supervisor here: %s", why)
	}
	e, err := permission.NewEngine(permission.ModeYolo, nil, deny)
	if err != nil {
		t.Fatal(err)
	}
	return Options{Policy: &contain.Policy{Judge: e.ExecGuard().Judge}}
}

// A program the parser cannot see is refused when it really runs, and the result
// says which rule refused what; the rest of the command goes on.
func TestBashReportsWhatTheSupervisorBlocked(t *testing.T) {
	t.Parallel()
	o := guarded(t, `bash:mv .*`)
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "a"), nil, 0o644); err != nil {
		t.Fatal(err)
	}
	res := call(t, t.Context(), toolNamed(t, o, "bash"), tool.Env{Cwd: dir},
		map[string]any{"command": `p=m; "${p}v" a b; echo after`})
	if _, err := os.Stat(filepath.Join(dir, "b")); err == nil {
		t.Fatal("a was moved")
	}
	if !strings.Contains(res.Text, "Operation not permitted\nafter\n[blocked by deny rule bash:mv .*: mv a b]") {
		t.Errorf("got %q", res.Text)
	}
	if len(res.Blocked) != 1 || res.Blocked[0] != (tool.Blocked{Rule: "bash:mv .*", Command: "mv a b"}) {
		t.Errorf("Blocked = %+v", res.Blocked)
	}
}

// A background task is held to the same rules; task_output says what was refused.
func TestBackgroundTaskIsSupervised(t *testing.T) {
	t.Parallel()
	s := newSession(t)
	g := guarded(t, `bash:mv .*`)
	s.o.Policy = g.Policy
	if err := os.WriteFile(filepath.Join(s.cwd, "a"), nil, 0o644); err != nil {
		t.Fatal(err)
	}
	id := s.start(`eval "m""v a b"; echo done`)
	res := s.run("task_output", map[string]any{"task_id": id, "timeout": 10})
	if _, err := os.Stat(filepath.Join(s.cwd, "b")); err == nil {
		t.Fatal("a was moved")
	}
	if !strings.Contains(res.Text, "done\n[bg_1 finished after") || !strings.HasSuffix(res.Text, "[blocked by deny rule bash:mv .*: mv a b]") {
		t.Errorf("got %q", res.Text)
	}
}

// A write the sandbox refuses is said in one sentence naming the path; the project
// is writable.
func TestSandboxFailureIsSaid(t *testing.T) {
	t.Parallel()
	if b, why := contain.SandboxStatus(); b != contain.BackendBubblewrap {
		testenv.Need(t, "bwrap")
		t.Skipf("bubblewrap cannot run here (%s)", why)
	}
	dir := t.TempDir()
	outside := t.TempDir()
	o := Options{Policy: &contain.Policy{Sandbox: func() *contain.Sandbox { return &contain.Sandbox{Writable: []string{dir}, Network: false} }}}
	res := call(t, t.Context(), toolNamed(t, o, "bash"), tool.Env{Cwd: dir},
		map[string]any{"command": "echo ok > here && cat here && touch " + outside + "/x"})
	want := "[sandbox: " + outside + "/x is read-only in the sandbox:"
	if !strings.Contains(res.Text, "ok\n") || !strings.Contains(res.Text, want) {
		t.Errorf("got %q, want %q in it", res.Text, want)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0") // on the host's loopback: out of the sandbox's
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	res = call(t, t.Context(), toolNamed(t, o, "bash"), tool.Env{Cwd: dir},
		map[string]any{"command": fmt.Sprintf("exec 3<>/dev/tcp/127.0.0.1/%d", ln.Addr().(*net.TCPAddr).Port)})
	if !strings.Contains(res.Text, "[sandbox: the network is off") {
		t.Errorf("network: %q", res.Text)
	}
}

// task_kill of a background task leaves nothing it started, setsid included.
func TestTaskKillLeavesNothing(t *testing.T) {
	t.Parallel()
	if m, why := contain.Status(); m == contain.ModeGroup {
		t.Skipf("no PID namespaces here (%s)", why)
	}
	s := newSession(t)
	id := s.start("setsid sleep 353.5 & nohup sleep 353.5 >/dev/null 2>&1 & echo started; sleep 353.5")
	s.run("task_output", map[string]any{"task_id": id, "block": false})
	waitFor(t, 5*time.Second, "the sleeps", func() bool { return len(sleeps("353.5")) >= 3 })
	s.run("task_kill", map[string]any{"task_id": id})
	waitFor(t, time.Second, "no sleep left", func() bool { return len(sleeps("353.5")) == 0 })
}

// sleeps lists the living processes whose command line holds "sleep "+arg.
func sleeps(arg string) []string {
	var out []string
	entries, _ := os.ReadDir("/proc")
	for _, e := range entries {
		b, err := os.ReadFile(filepath.Join("/proc", e.Name(), "cmdline"))
		if err != nil || !strings.Contains(strings.ReplaceAll(string(b), "\x00", " "), "sleep "+arg) {
			continue
		}
		if st, err := os.ReadFile(filepath.Join("/proc", e.Name(), "stat")); err == nil {
			if i := strings.LastIndexByte(string(st), ')'); i > 0 && i+2 < len(st) && (st[i+2] == 'Z' || st[i+2] == 'X') {
				continue
			}
		}
		out = append(out, e.Name())
	}
	return out
}
