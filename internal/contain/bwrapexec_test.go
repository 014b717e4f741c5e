//go:build linux

package contain

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
)

// bash is looked up for bubblewrap as execvp would inside the sandbox: a masked
// program, a file that cannot run, a folder of that name are passed over; a PATH
// with a folder it cannot follow from outside is left to bubblewrap.
func TestSandboxLookPath(t *testing.T) {
	root := t.TempDir()
	masked, notExec, isDir, good := filepath.Join(root, "masked"), filepath.Join(root, "noexec"), filepath.Join(root, "dir"), filepath.Join(root, "good")
	for _, d := range []string{masked, notExec, filepath.Join(isDir, "prog"), good} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	for _, f := range []struct {
		path string
		mode os.FileMode
	}{{filepath.Join(masked, "prog"), 0o755}, {filepath.Join(notExec, "prog"), 0o644}, {filepath.Join(good, "prog"), 0o755}} {
		if err := os.WriteFile(f.path, []byte("#!/bin/sh\n"), f.mode); err != nil {
			t.Fatal(err)
		}
	}
	real, err := filepath.EvalSymlinks(filepath.Join(masked, "prog"))
	if err != nil {
		t.Fatal(err)
	}
	ms := []mask{{path: real}}
	path := strings.Join([]string{filepath.Join(root, "missing"), masked, isDir, good}, ":")
	if os.Geteuid() != 0 {
		path = strings.Join([]string{filepath.Join(root, "missing"), masked, notExec, isDir, good}, ":")
	}
	if got, want := sandboxLookPath("prog", path, ms), filepath.Join(good, "prog"); got != want {
		t.Errorf("found %q, want %q", got, want)
	}
	realDir, _ := filepath.EvalSymlinks(masked)
	if got := sandboxLookPath("prog", masked+":"+good, []mask{{path: realDir, dir: true}}); got != filepath.Join(good, "prog") {
		t.Errorf("a program in a masked folder was found: %q", got)
	}
	for _, p := range []string{"relative:" + good, ":" + good, "/proc/self:" + good, filepath.Join(root, "missing")} {
		if got := sandboxLookPath("prog", p, nil); got != "" {
			t.Errorf("PATH %q: found %q, want bubblewrap to look", p, got)
		}
	}
	if got := shellArgv([]string{"env", "x"}, good, nil); len(got) != 2 {
		t.Errorf("another program's argv changed: %q", got)
	}
}

// A sandboxed command's bash is executed once, found already, and still calls itself
// bash; the command's group is gone when the helper has exited (it reaps bubblewrap's
// init), with nothing left for gantry to wait for.
func TestSandboxShellExecutedOnce(t *testing.T) {
	needSandbox(t, BackendBubblewrap)
	needSupervisor(t)
	project := t.TempDir()
	var mu sync.Mutex
	var execs []string
	judge := func(x Exec) Refusal {
		mu.Lock()
		execs = append(execs, x.Path)
		mu.Unlock()
		return Refusal{}
	}
	missing := filepath.Join(project, "missing")
	p := New(`echo "[$0]"; no_such_command_of_this_test`, Options{
		Dir: project, Judge: judge, Sandbox: &Sandbox{Writable: []string{project}},
		Env: []string{"PATH=" + missing + ":" + os.Getenv("PATH")},
	})
	var b bytes.Buffer
	p.Cmd.Stdout, p.Cmd.Stderr = &b, &b
	if err := p.Start(); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- p.Cmd.Wait() }()
	select {
	case <-done:
	case <-time.After(30 * time.Second):
		p.Stop(time.Second)
		<-done
		t.Fatal("the sandboxed command did not end")
	}
	err := syscall.Kill(-p.Cmd.Process.Pid, 0)
	p.Stop(time.Second)
	p.finish()
	if !errors.Is(err, syscall.ESRCH) {
		t.Errorf("the command's group was still there when the helper had exited: %v", err)
	}
	out := b.String()
	if !strings.Contains(out, "[bash]") || !strings.Contains(out, "bash: line 1: no_such_command_of_this_test") {
		t.Errorf("the shell does not call itself bash: %q", out)
	}
	mu.Lock()
	defer mu.Unlock()
	var shells []string
	for _, e := range execs {
		if filepath.Base(e) == "bash" {
			shells = append(shells, e)
		}
	}
	if len(shells) != 1 || !filepath.IsAbs(shells[0]) {
		t.Errorf("bash was executed as %q, want once by its path", shells)
	}
}
