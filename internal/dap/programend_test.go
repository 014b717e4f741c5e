package dap

import (
	"bufio"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/gantry-dev/gantry/internal/contain"
)

// goEnv is the policy of the delve tests (no VCS stamping of a temporary folder).
var goEnv = &contain.Policy{Env: func() []string { return []string{"GOFLAGS=-buildvcs=false"} }}

// A program that prints a line on each stream and ends as its argument says: by
// itself with a code, or killed by a signal.
const (
	goEnds = `package main

import (
	"fmt"
	"os"
	"syscall"
)

func main() {
	fmt.Println("to stdout")
	fmt.Fprintln(os.Stderr, "to stderr")
	if len(os.Args) > 1 {
		syscall.Kill(os.Getpid(), syscall.SIGKILL)
	}
	os.Exit(4)
}
`
	pyEnds = `import os, signal, sys
print("to stdout")
print("to stderr", file=sys.stderr)
if len(sys.argv) > 1:
    os.kill(os.getpid(), signal.SIGSEGV)
sys.stdout.flush()
sys.stderr.flush()
os._exit(4)  # sys.exit would stop at its SystemExit
`
	cEnds = `#include <stdio.h>
int main(int argc, char **argv) {
  printf("to stdout\n");
  fflush(stdout);
  fprintf(stderr, "to stderr\n");
  if (argc > 1) {
    volatile int *p = 0;
    *p = 1;
  }
  return 4;
}
`
)

// ends is one adapter's program: how to make and launch it, and what signal kills
// it when asked to.
type ends struct {
	adapter string
	python  string
	policy  *contain.Policy
	make    func(t *testing.T, dir string) string // the program to launch
	signal  int
	// messages are the adapter's own lines of a run (none of them the program's).
	messages []string
}

var endsCases = []ends{
	{adapter: "delve", policy: goEnv, signal: 9, messages: []string{"Building ", "Type 'dlv help'"},
		make: func(t *testing.T, dir string) string {
			write(t, dir, "go.mod", "module example.com/p\n\ngo 1.22\n")
			write(t, dir, "main.go", goEnds)
			return dir
		}},
	{adapter: "debugpy", python: debianPython, signal: 11,
		make: func(t *testing.T, dir string) string { return write(t, dir, "prog.py", pyEnds) }},
	{adapter: "lldb", signal: 11, messages: []string{"exited with status = "},
		make: func(t *testing.T, dir string) string {
			src := write(t, dir, "prog.c", cEnds)
			bin := filepath.Join(dir, "prog")
			if out, err := exec.Command("cc", "-g", "-O0", "-o", bin, src).CombinedOutput(); err != nil {
				t.Fatalf("cc: %v %s", err, out)
			}
			return bin
		}},
}

// run launches c's program with args and lets it run to its end (through the stop
// of a crash, where the adapter stops there); it returns the end and what was said.
func (c ends) run(t *testing.T, args ...string) (Snapshot, string, string) {
	t.Helper()
	dir := t.TempDir()
	u := need(t, c.adapter, dir, c.python)
	prog := c.make(t, dir)
	ctx := context.Background()
	s, err := Launch(ctx, u, prog, args, nil, Options{Dir: dir, Policy: c.policy})
	if err != nil {
		t.Fatal(err)
	}
	defer func() {
		if err := s.Close(); err != nil {
			t.Error(err)
		}
	}()
	sn, err := s.Wait(ctx, 0, time.Minute)
	if err == nil && sn.State == Stopped { // lldb stops at the SIGSEGV
		if !strings.Contains(sn.Description, "SIGSEGV") {
			t.Fatalf("stopped, not on the signal: %+v", sn)
		}
		sn, err = s.Resume(ctx, "continue", sn.ThreadID, time.Minute)
	}
	if err != nil || sn.State != Exited || sn.ExitCode == nil {
		t.Fatalf("end %+v %v", sn, err)
	}
	out, _ := s.Output()
	return sn, out, s.Messages()
}

// The adapter's own lines are kept apart from the program's output, telemetry
// dropped: delve's "Building …" (which it sends as stdout, before the program runs)
// and "Type 'dlv help'…", lldb's "Process N exited…", debugpy's telemetry.
func TestAdapterMessagesApart(t *testing.T) {
	for _, c := range endsCases {
		t.Run(c.adapter, func(t *testing.T) {
			sn, out, messages := c.run(t)
			if *sn.ExitCode != 4 || sn.Signal != 0 {
				t.Errorf("exit %d, signal %d", *sn.ExitCode, sn.Signal)
			}
			// The two streams interleave as they come (debugpy sends print's newline
			// apart): the text, spaces aside, is the two lines in either order.
			got := strings.Join(strings.Fields(out), "")
			if got != "tostdouttostderr" && got != "tostderrtostdout" {
				t.Errorf("the program's output holds more than its own lines: %q", out)
			}
			for _, m := range c.messages {
				if !strings.Contains(messages, m) {
					t.Errorf("the adapter's messages lack %q: %q", m, messages)
				}
			}
			for _, bad := range []string{"to stdout", "to stderr", "ptvsd", "packageVersion", "debugpy"} {
				if strings.Contains(messages, bad) {
					t.Errorf("the adapter's messages hold %q: %q", bad, messages)
				}
			}
		})
	}
}

// A program killed by a signal is said to be, whichever way its adapter reports it:
// delve -9, debugpy 245 (256-11), lldb 11 after a stop on SIGSEGV.
func TestExitSignal(t *testing.T) {
	for _, c := range endsCases {
		t.Run(c.adapter, func(t *testing.T) {
			sn, _, _ := c.run(t, "die")
			if sn.Signal != c.signal {
				t.Errorf("exit code %d read as signal %d, want %d", *sn.ExitCode, sn.Signal, c.signal)
			}
		})
	}
}

func TestExitSignalCodes(t *testing.T) {
	for _, c := range []struct {
		how              SignalCode
		code, stop, want int
	}{
		{SignalNegative, -11, 0, 11},
		{SignalNegative, 139, 0, 0},
		{SignalNegative, 4, 0, 0},
		{SignalWrapped, 245, 0, 11},
		{SignalWrapped, 255, 0, 1},
		{SignalWrapped, 225, 0, 31},
		{SignalWrapped, 224, 0, 0}, // exit(224) is the program's own
		{SignalWrapped, 4, 0, 0},
		{SignalWrapped, -9, 0, 9},
		{SignalNumber, 11, 11, 11},
		{SignalNumber, 11, 0, 0}, // exit(11), no crash before
		{SignalNumber, 4, 11, 0},
	} {
		if got := exitSignal(c.how, c.code, c.stop); got != c.want {
			t.Errorf("exitSignal(%d, %d, %d) = %d, want %d", c.how, c.code, c.stop, got, c.want)
		}
	}
	if n := signalOfStop("signal SIGSEGV: address not mapped to object (fault address: 0x0)"); n != 11 {
		t.Errorf("lldb's SIGSEGV stop: %d", n)
	}
	if SignalName(11) != "SIGSEGV" || SignalName(9) != "SIGKILL" {
		t.Errorf("names %q %q", SignalName(11), SignalName(9))
	}
}

// kill -9 of the gantry that holds a delve session leaves nothing in the project
// (delve builds into gantry's folder), no process, and a folder the next gantry
// removes, with delve's named pipes in it.
func TestKilledGantryLeavesNoBuild(t *testing.T) {
	dir := t.TempDir()
	tmp := privateTemp(t) // the child gantry's temporary folder too
	write(t, dir, "go.mod", "module example.com/p\n\ngo 1.22\n")
	write(t, dir, "main.go", goProgram)
	need(t, "delve", dir, "")
	child := exec.Command(os.Args[0], "-test.run=^$")
	child.Env = append(os.Environ(), childEnv+"="+dir)
	stdout, err := child.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := child.Start(); err != nil {
		t.Fatal(err)
	}
	line, err := bufio.NewReader(stdout).ReadString('\n')
	build, ok := strings.CutPrefix(strings.TrimSpace(line), "ready ")
	if err != nil || !ok {
		_ = child.Process.Kill()
		_ = child.Wait()
		t.Fatalf("the child gantry: %q %v", line, err)
	}
	if _, err := os.Stat(filepath.Join(build, buildName)); err != nil {
		t.Errorf("delve did not build into gantry's folder: %v", err)
	}
	if !strings.HasPrefix(filepath.Base(build), buildPrefix+strconv.Itoa(child.Process.Pid)+"-") {
		t.Errorf("build folder %s", build)
	}
	if err := child.Process.Signal(syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	_ = child.Wait()
	// The adapter and the program die with the gantry that started them.
	deadline := time.Now().Add(10 * time.Second)
	for len(running(build)) > 0 {
		if time.Now().After(deadline) {
			t.Fatalf("processes outlived the killed gantry: %v", running(build))
		}
		time.Sleep(10 * time.Millisecond)
	}
	entries, _ := os.ReadDir(dir)
	for _, e := range entries {
		if strings.HasPrefix(e.Name(), "__debug_bin") {
			t.Errorf("%s left in the project", e.Name())
		}
	}
	if _, err := os.Stat(build); err != nil {
		t.Fatalf("the killed gantry's build folder: %v", err)
	}
	// The next gantry sweeps it, and not a live one's.
	mine, err := newBuildDir()
	if err != nil {
		t.Fatal(err)
	}
	defer os.RemoveAll(mine)
	sweepBuildDirs(os.TempDir())
	if _, err := os.Stat(build); !os.IsNotExist(err) {
		t.Errorf("the stale build folder is still there: %v", err)
		os.RemoveAll(build)
	}
	if _, err := os.Stat(mine); err != nil {
		t.Errorf("a live gantry's build folder was swept: %v", err)
	}
	// Nothing else was left: delve's pipes were in the swept folder.
	os.RemoveAll(mine)
	leftIn(t, tmp)
}

// running lists the processes whose command line holds s (zombies aside).
func running(s string) []string {
	var out []string
	entries, _ := os.ReadDir("/proc")
	for _, e := range entries {
		b, err := os.ReadFile("/proc/" + e.Name() + "/cmdline")
		if err != nil || !strings.Contains(string(b), s) {
			continue
		}
		if st, err := os.ReadFile("/proc/" + e.Name() + "/stat"); err == nil && strings.Contains(string(st), ") Z ") {
			continue
		}
		out = append(out, e.Name()+": "+strings.ReplaceAll(string(b), "\x00", " "))
	}
	return out
}
