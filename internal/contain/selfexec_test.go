//go:build linux

package contain

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// refuseFile refuses every exec whose program is the file path (by device and inode,
// whatever name the process gave it), as gantry's exec guard judges.
func refuseFile(t *testing.T, path string) Judge {
	t.Helper()
	var want syscall.Stat_t
	if err := syscall.Stat(path, &want); err != nil {
		t.Fatal(err)
	}
	return func(x Exec) Refusal {
		if x.File == nil {
			return Refusal{}
		}
		var st syscall.Stat_t
		if syscall.Fstat(int(x.File.Fd()), &st) == nil && st.Dev == want.Dev && st.Ino == want.Ino {
			return Refusal{Rule: "no " + path, Command: strings.Join(x.Argv, " ")}
		}
		return Refusal{}
	}
}

// runIn runs script in dir as o says (Dir set here) and returns its output and process.
func runIn(t *testing.T, dir, script string, o Options) (string, *Process) {
	t.Helper()
	o.Dir = dir
	p := New(script, o)
	var b bytes.Buffer
	p.Cmd.Stdout, p.Cmd.Stderr = &b, &b
	if err := p.Start(); err != nil {
		t.Fatal(err)
	}
	p.Wait(context.Background(), 30*time.Second, time.Second, nil)
	if f := p.Fault(); f != "" {
		t.Fatalf("supervisor fault: %s", f)
	}
	if o.Sandbox != nil {
		if f := p.SandboxFault(); f != "" {
			t.Fatalf("no sandbox: %s", f)
		}
	}
	return b.String(), p
}

// selfExecs run mv (a → b in the working folder) under another name: through
// gantry's resolution of /proc/self, /dev/fd and their kin they must still be mv.
var selfExecs = map[string]string{
	"proc-self-fd":   `exec 3</usr/bin/mv; /proc/self/fd/3 a b`,
	"dev-fd":         `exec 3</usr/bin/mv; /dev/fd/3 a b`,
	"thread-self-fd": `exec 3</usr/bin/mv; /proc/thread-self/fd/3 a b`,
	"dev-stdin":      `/dev/stdin a b </usr/bin/mv`,
	"relative":       `exec 3</usr/bin/mv; d=$PWD; cd /dev && ./fd/3 "$d/a" "$d/b"`,
	"proc-net-up":    `exec 3</usr/bin/mv; /proc/net/../fd/3 a b`,
	"proc-self-root": `exec 3</usr/bin/mv; /proc/self/root/proc/self/fd/3 a b`,
	"python-execv":   `python3 -c 'import os; fd = os.open("/usr/bin/mv", os.O_RDONLY); os.execv("/proc/self/fd/%d" % fd, ["mv", "a", "b"])'`,
}

// testSelfExecs shows each trick moving the file with no judge, then refused by a
// judge of mv's file, in the setting o.
func testSelfExecs(t *testing.T, o Options) {
	for name, script := range selfExecs {
		t.Run(name, func(t *testing.T) {
			dir := t.TempDir()
			if o.Sandbox != nil {
				sb := *o.Sandbox
				sb.Writable = []string{dir}
				o.Sandbox = &sb
			}
			os.WriteFile(filepath.Join(dir, "a"), []byte("x"), 0o644)
			free := o
			free.Judge = func(Exec) Refusal { return Refusal{} }
			if out, _ := runIn(t, dir, script, free); !exists(filepath.Join(dir, "b")) {
				t.Fatalf("with no rule the trick did not move the file: %q", out)
			}
			os.Rename(filepath.Join(dir, "b"), filepath.Join(dir, "a"))
			o.Judge = refuseFile(t, "/usr/bin/mv")
			out, p := runIn(t, dir, script, o)
			if exists(filepath.Join(dir, "b")) || !exists(filepath.Join(dir, "a")) {
				t.Errorf("mv ran: %q", out)
			}
			if len(p.Blocked()) == 0 {
				t.Errorf("nothing was refused: %q", out)
			}
		})
	}
}

func exists(path string) bool {
	_, err := os.Lstat(path)
	return err == nil
}

// /proc/self, /proc/thread-self, /dev/fd and /dev/stdin are the calling process's,
// not gantry's.
func TestSupervisorSelfIsTheCaller(t *testing.T) {
	needSupervisor(t)
	testSelfExecs(t, Options{})
}

// The same with a /proc of the command's own PID namespace, whose pids differ from
// gantry's.
func TestSupervisorSelfOwnProc(t *testing.T) {
	needSupervisor(t)
	if m, why := Status(); m == ModeGroup {
		t.Skipf("no namespaces here: %s", why)
	}
	testSelfExecs(t, Options{OwnProc: true})
}

// The same inside bubblewrap (its own /proc, its own /dev with /dev/fd).
func TestSupervisorSelfInSandbox(t *testing.T) {
	needSupervisor(t)
	needSandbox(t, BackendBubblewrap)
	testSelfExecs(t, Options{Sandbox: &Sandbox{Network: true}})
}
