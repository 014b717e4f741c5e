package contain

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"go.uber.org/goleak"

	"github.com/gantry-dev/gantry/internal/testenv"
)

// parentEnv makes the test binary a parent that runs one contained command and waits
// (for the kill -9 test).
const parentEnv = "GANTRY_CONTAIN_TEST_PARENT"

func TestMain(m *testing.M) {
	if script := os.Getenv(parentEnv); script != "" {
		cmd := Command(script, "", nil)
		cmd.Stdout = os.Stdout
		if err := cmd.Start(); err != nil {
			fmt.Println("start:", err)
			os.Exit(1)
		}
		_ = cmd.Wait()
		os.Exit(0)
	}
	goleak.VerifyTestMain(m)
}

// needNamespaces fails the test with the reason when namespaces cannot be made: the
// machines gantry is tested on can make them, and a silent fallback would test nothing.
func needNamespaces(t *testing.T) {
	t.Helper()
	if m, why := Status(); m == ModeGroup {
		t.Skipf("no PID namespaces here (%s): commands fall back to process groups", why)
	}
}

// alive lists the pids of living processes whose command line holds s.
func alive(s string) []int {
	entries, _ := os.ReadDir("/proc")
	var out []int
	for _, e := range entries {
		pid, err := strconv.Atoi(e.Name())
		if err != nil || pid == os.Getpid() {
			continue
		}
		cmdline, err := os.ReadFile("/proc/" + e.Name() + "/cmdline")
		if err != nil || !strings.Contains(string(bytes.ReplaceAll(cmdline, []byte{0}, []byte{' '})), s) {
			continue
		}
		if stat, err := os.ReadFile("/proc/" + e.Name() + "/stat"); err == nil {
			if i := strings.LastIndexByte(string(stat), ')'); i > 0 && i+2 < len(stat) && (stat[i+2] == 'Z' || stat[i+2] == 'X') {
				continue
			}
		}
		out = append(out, pid)
	}
	return out
}

// gone waits up to d for no process with s in its command line; it kills and
// reports any that stay.
func gone(t *testing.T, s string, d time.Duration) {
	t.Helper()
	deadline := time.Now().Add(d)
	for len(alive(s)) > 0 {
		if time.Now().After(deadline) {
			pids := alive(s)
			for _, p := range pids {
				_ = syscall.Kill(p, syscall.SIGKILL)
			}
			t.Fatalf("processes %v (%q) outlived their command by %v", pids, s, d)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

func TestStatusHere(t *testing.T) {
	m, why := Status()
	t.Logf("contained with %s %s", m, why)
	if m == ModeGroup && why == "" {
		t.Fatal("no namespaces and no reason")
	}
}

// What a command starts dies with it: setsid, nohup and a double fork included.
func TestNothingOutlivesTheCommand(t *testing.T) {
	needNamespaces(t)
	script := `setsid sleep 311 & nohup sleep 312 >/dev/null 2>&1 & ( ( sleep 313 & ) & ); echo started`
	cmd := Command(script, t.TempDir(), nil)
	out, err := cmd.Output()
	if err != nil || strings.TrimSpace(string(out)) != "started" {
		t.Fatalf("%v %q", err, out)
	}
	for _, s := range []string{"sleep 311", "sleep 312", "sleep 313"} {
		gone(t, s, time.Second)
	}
}

// kill -9 of the process that started a command kills everything the command started.
func TestParentKilledKillsTheNamespace(t *testing.T) {
	needNamespaces(t)
	parent := exec.Command(os.Args[0], "-test.run=^$")
	parent.Env = append(os.Environ(), parentEnv+"=setsid sleep 321 & sleep 322 & echo running; wait")
	stdout, err := parent.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := parent.Start(); err != nil {
		t.Fatal(err)
	}
	line := make([]byte, 8)
	if _, err := stdout.Read(line); err != nil || !strings.HasPrefix(string(line), "running") {
		t.Fatalf("the command did not start: %v %q", err, line)
	}
	deadline := time.Now().Add(5 * time.Second)
	for len(alive("sleep 321")) == 0 || len(alive("sleep 322")) == 0 {
		if time.Now().After(deadline) {
			t.Fatal("the sleeps never ran")
		}
		time.Sleep(5 * time.Millisecond)
	}
	_ = parent.Process.Signal(syscall.SIGKILL)
	_ = parent.Wait()
	gone(t, "sleep 321", time.Second)
	gone(t, "sleep 322", time.Second)
}

func TestExitStatusAndOutput(t *testing.T) {
	needNamespaces(t)
	for _, c := range []struct {
		script string
		code   int
		out    string
	}{
		{"echo out; echo err >&2; exit 3", 3, "out\nerr\n"},
		{"kill -TERM $$", 128 + 15, ""},
		{"cat; echo after-stdin", 0, "after-stdin\n"}, // stdin is /dev/null
		{"(sleep 0.05; echo late) & echo first", 0, "first\nlate\n"},
		{"no-such-program-here", 127, ""},
	} {
		cmd := Command(c.script, t.TempDir(), []string{"GANTRY=1"})
		var b bytes.Buffer
		cmd.Stdout, cmd.Stderr = &b, &b
		err := cmd.Run()
		code := 0
		var ee *exec.ExitError
		if errors.As(err, &ee) {
			code = ee.ExitCode()
		} else if err != nil {
			t.Fatalf("%s: %v", c.script, err)
		}
		if code != c.code || (c.out != "" && b.String() != c.out) {
			t.Errorf("%q: exit %d, output %q; want %d, %q", c.script, code, b.String(), c.code, c.out)
		}
	}
}

// SIGTERM to the command's process group reaches the command, whose trap runs.
func TestSignalsReachTheCommand(t *testing.T) {
	needNamespaces(t)
	cmd := Command(`trap 'echo trapped; exit 5' TERM; echo ready; sleep 30 & wait`, t.TempDir(), nil)
	stdout, _ := cmd.StdoutPipe()
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	buf := make([]byte, 6)
	if _, err := stdout.Read(buf); err != nil {
		t.Fatal(err)
	}
	_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGTERM)
	rest := new(bytes.Buffer)
	var err error
	testenv.Done(t, func() {
		_, _ = rest.ReadFrom(stdout)
		err = cmd.Wait()
	}, testenv.Bound, "the command to end after its SIGTERM")
	var ee *exec.ExitError
	if !errors.As(err, &ee) || ee.ExitCode() != 5 || !strings.Contains(rest.String(), "trapped") {
		t.Fatalf("exit %v, output %q", err, rest.String())
	}
}

// Both namespace modes work where they can: the command's parent is the first process
// of its namespace (the helper), and the command has gantry's own user id.
func TestBothModes(t *testing.T) {
	needNamespaces(t)
	for _, m := range []Mode{ModePIDNamespace, ModeUserPIDNamespace} {
		if m == ModePIDNamespace && os.Geteuid() != 0 {
			continue
		}
		cmd := helper(m, nil, "--", "bash", "-c", "echo $PPID $(id -u)")
		out, err := cmd.Output()
		if err != nil {
			if m == ModeUserPIDNamespace && mode == ModePIDNamespace {
				t.Logf("no user namespaces as root here: %v", err)
				continue
			}
			t.Fatalf("%s: %v", m, err)
		}
		if want := fmt.Sprintf("1 %d", os.Geteuid()); strings.TrimSpace(string(out)) != want {
			t.Errorf("%s: %q, want %q", m, out, want)
		}
	}
}

// groupEnv makes a test binary fall back to process groups, as where namespaces
// cannot be made (see TestGroupFallback).
const groupEnv = "GANTRY_CONTAIN_TEST_GROUP"

func init() {
	if os.Getenv(groupEnv) != "" {
		probeOnce.Do(func() {
			probe()
			mode, why = ModeGroup, "forced by the test"
		})
	}
}

// Without namespaces a command runs in a cgroup of its own when one can be made: what
// it started with setsid dies with it all the same, and the supervisor still checks
// every exec. The test runs itself again with the fallback forced.
func TestGroupFallback(t *testing.T) {
	if os.Getenv(groupEnv) == "" {
		cmd := exec.Command(os.Args[0], "-test.run=^TestGroupFallback$", "-test.v")
		cmd.Env = append(os.Environ(), groupEnv+"=1")
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("%v\n%s", err, out)
		}
		if s := string(out); strings.Contains(s, "--- SKIP") {
			t.Skip(s[strings.Index(s, "--- SKIP"):])
		}
		return
	}
	if m, _ := Status(); m != ModeGroup {
		t.Fatalf("mode %s", m)
	}
	if cgroupRoot() == "" {
		t.Skip("no writable cgroup v2 here: the fallback is a process group alone")
	}
	defer Cleanup()
	p := New(`setsid sleep 352 & echo started`, Options{Dir: t.TempDir()})
	var b bytes.Buffer
	p.Cmd.Stdout = &b
	if err := p.Start(); err != nil {
		t.Fatal(err)
	}
	p.Wait(t.Context(), 10*time.Second, time.Second, nil)
	if b.String() != "started\n" {
		t.Errorf("output %q", b.String())
	}
	gone(t, "sleep 352", time.Second)
	if ok, _ := Supervisor(); ok {
		q := New(`mv a b 2>/dev/null; echo "st=$?"`, Options{Dir: t.TempDir(), Judge: func(x Exec) Refusal {
			if strings.HasSuffix(x.Path, "mv") {
				return Refusal{Rule: "no mv", Command: "mv"}
			}
			return Refusal{}
		}})
		var c bytes.Buffer
		q.Cmd.Stdout = &c
		if err := q.Start(); err != nil {
			t.Fatal(err)
		}
		q.Wait(t.Context(), 10*time.Second, time.Second, nil)
		if c.String() != "st=126\n" || len(q.Blocked()) != 1 {
			t.Errorf("supervised without namespaces: %q %+v", c.String(), q.Blocked())
		}
	}
}

// ExtraFiles are the command's descriptors 3, 4, …, with and without the supervisor
// and without namespaces.
func TestExtraFiles(t *testing.T) {
	judge := func(Exec) Refusal { return Refusal{} }
	for _, c := range []struct {
		name string
		o    Options
	}{
		{"plain", Options{}},
		{"supervised", Options{Judge: judge}},
		{"loose", Options{Loose: true}},
	} {
		r3, w3, err := os.Pipe()
		if err != nil {
			t.Fatal(err)
		}
		r4, w4, err := os.Pipe()
		if err != nil {
			t.Fatal(err)
		}
		c.o.Dir = t.TempDir()
		c.o.ExtraFiles = []*os.File{w3, w4}
		p := New("echo three >&3; echo four >&4", c.o)
		if err := p.Start(); err != nil {
			t.Fatal(err)
		}
		w3.Close()
		w4.Close()
		got3, _ := io.ReadAll(r3)
		got4, _ := io.ReadAll(r4)
		p.Wait(context.Background(), 0, time.Second, nil)
		r3.Close()
		r4.Close()
		if string(got3) != "three\n" || string(got4) != "four\n" {
			t.Errorf("%s: fd 3 %q, fd 4 %q", c.name, got3, got4)
		}
	}
}
