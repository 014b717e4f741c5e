package contain

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"
)

// needSupervisor skips when the kernel cannot supervise here, saying why.
func needSupervisor(t *testing.T) {
	t.Helper()
	if ok, why := Supervisor(); !ok {
		t.Skipf("no exec supervisor here: %s", why)
	}
}

// run runs script supervised by judge in dir and returns its output and process.
func run(t *testing.T, dir, script string, judge Judge) (string, *Process) {
	t.Helper()
	p := New(script, Options{Dir: dir, Judge: judge})
	var b bytes.Buffer
	p.Cmd.Stdout, p.Cmd.Stderr = &b, &b
	if err := p.Start(); err != nil {
		t.Fatal(err)
	}
	p.Wait(context.Background(), 20*time.Second, time.Second, nil)
	if f := p.Fault(); f != "" {
		t.Fatalf("supervisor fault: %s", f)
	}
	return b.String(), p
}

// refuseBase refuses every exec whose program's base name is one of names.
func refuseBase(names ...string) Judge {
	return func(x Exec) Refusal {
		for _, n := range names {
			if filepath.Base(x.Path) == n {
				return Refusal{Rule: "no " + n, Command: strings.Join(x.Argv, " ")}
			}
		}
		return Refusal{}
	}
}

// Every exec of the command and of what it starts reaches the judge with its real
// path and arguments; a refused one fails with EPERM and is kept.
func TestSupervisorSeesAndRefuses(t *testing.T) {
	needSupervisor(t)
	dir := t.TempDir()
	var mu sync.Mutex
	var seen []string
	judge := func(x Exec) Refusal {
		mu.Lock()
		seen = append(seen, x.Path+"|"+strings.Join(x.Argv, " "))
		mu.Unlock()
		if x.File == nil {
			return Refusal{} // no such file: the kernel says so, and execvp tries on
		}
		return refuseBase("mv")(x)
	}
	out, p := run(t, dir, `touch a; mv a b; echo "mv=$?"; env mv a c; echo "env=$?"; /bin/echo 'x  y'`, judge)
	if !strings.Contains(out, "mv=126") || !strings.Contains(out, "env=126") || !strings.Contains(out, "x  y") {
		t.Errorf("output %q", out)
	}
	if _, err := os.Stat(filepath.Join(dir, "a")); err != nil {
		t.Errorf("a was moved: %v", err)
	}
	b := p.Blocked()
	if len(b) != 2 || b[0].Rule != "no mv" || b[0].Command != "mv a b" || b[1].Command != "mv a c" {
		t.Errorf("blocked %+v", b)
	}
	joined := strings.Join(seen, "\n")
	for _, want := range []string{"|bash -c", "|touch a", "|env mv a c", "/bin/echo|/bin/echo x  y"} {
		if !strings.Contains(joined, want) {
			t.Errorf("the judge did not see %q in\n%s", want, joined)
		}
	}
}

// execveat through a descriptor (fexecve) and a relative path are read right.
func TestSupervisorReadsEveryForm(t *testing.T) {
	needSupervisor(t)
	dir := t.TempDir()
	if err := os.Symlink("/bin/true", filepath.Join(dir, "mytrue")); err != nil {
		t.Fatal(err)
	}
	var mu sync.Mutex
	var files []string
	judge := func(x Exec) Refusal {
		if x.File != nil {
			real, _ := os.Readlink("/proc/self/fd/" + strconv.Itoa(int(x.File.Fd())))
			mu.Lock()
			files = append(files, x.Path+"→"+real)
			mu.Unlock()
		}
		return Refusal{}
	}
	fexec := `python3 -c 'import os; fd = os.open("/bin/echo", os.O_RDONLY); os.execve(fd, ["echo", "fexec-ok"], {})'`
	out, _ := run(t, dir, `./mytrue && echo rel-ok; (cd / && ./bin/true && echo root-rel-ok); `+fexec, judge)
	for _, want := range []string{"rel-ok", "root-rel-ok", "fexec-ok"} {
		if !strings.Contains(out, want) {
			t.Fatalf("no %q in the output %q", want, out)
		}
	}
	joined := strings.Join(files, "\n")
	for _, want := range []string{"./mytrue→/usr/bin/true", "./bin/true→/usr/bin/true", "→/usr/bin/echo"} {
		if !strings.Contains(joined, want) {
			t.Errorf("no %q in\n%s", want, joined)
		}
	}
	if strings.Contains(joined, "mytrue→"+dir) {
		t.Errorf("the symlink was not followed:\n%s", joined)
	}
}
