package dap

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/gantry-dev/gantry/internal/contain"
	"github.com/gantry-dev/gantry/internal/testenv"
)

// need ends a test whose adapter is not installed here as testenv.Missing says.
func need(t *testing.T, id, cwd, python string) Usability {
	t.Helper()
	specs := Defaults()
	for i := range specs {
		if specs[i].ID == id {
			u := Check(context.Background(), &specs[i], cwd, python, nil)
			if u.Why != "" {
				testenv.Missing(t, u.Why)
			}
			return u
		}
	}
	t.Fatalf("no adapter %s", id)
	return Usability{}
}

func write(t *testing.T, dir, name, text string) string {
	t.Helper()
	p := filepath.Join(dir, name)
	if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

const goProgram = `package main

import "fmt"

type point struct{ X, Y int }

func sum(ps []point) int {
	total := 0
	for _, p := range ps {
		total += p.X * p.Y
	}
	return total
}

func main() {
	ps := []point{{1, 2}, {3, 4}}
	fmt.Println("start")
	r := sum(ps)
	fmt.Println("sum", r)
}
`

// privateTemp points TMPDIR, for the rest of the test, at a folder of its own, and
// returns it.
func privateTemp(t *testing.T) string {
	t.Helper()
	tmp, err := os.MkdirTemp("", "gantry-dap-tmp-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(tmp) })
	t.Setenv("TMPDIR", tmp)
	return tmp
}

// leftIn fails t for whatever is in the folder tmp.
func leftIn(t *testing.T, tmp string) {
	t.Helper()
	entries, err := os.ReadDir(tmp)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		t.Errorf("left in the temporary folder: %s (%v)", e.Name(), e.Type())
	}
}

func TestDelveSession(t *testing.T) {
	dir := t.TempDir()
	tmp := privateTemp(t) // delve's pipes and build go to the session's folder, gone at Close
	write(t, dir, "go.mod", "module example.com/p\n\ngo 1.22\n")
	main := write(t, dir, "main.go", goProgram)
	u := need(t, "delve", dir, "")
	ctx := context.Background()
	s, err := Launch(ctx, u, dir, nil, map[string][]int{main: {10}}, Options{Dir: dir, Policy: &contain.Policy{Env: func() []string { return []string{"GOFLAGS=-buildvcs=false"} }}})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	sn, err := s.Wait(ctx, 0, time.Minute)
	if err != nil || sn.State != Stopped {
		t.Fatalf("first stop: %+v %v", sn, err)
	}
	frames, _, err := s.Stack(ctx, sn.ThreadID, 5)
	if err != nil || len(frames) == 0 || frames[0].Line != 10 || !strings.HasSuffix(frames[0].Source.Path, "main.go") {
		t.Fatalf("stack %+v %v", frames, err)
	}
	ev, err := s.Evaluate(ctx, "p.X * p.Y", frames[0].Id)
	if err != nil || ev.Result != "2" {
		t.Fatalf("evaluate %+v %v", ev, err)
	}
	sn, err = s.Resume(ctx, "continue", sn.ThreadID, time.Minute)
	if err != nil || sn.State != Stopped || sn.Stops != 2 {
		t.Fatalf("second stop %+v %v", sn, err)
	}
	if _, err := s.SetBreakpoints(ctx, main, nil); err != nil {
		t.Fatal(err)
	}
	sn, err = s.Resume(ctx, "continue", sn.ThreadID, time.Minute)
	if err != nil || sn.State != Exited || sn.ExitCode == nil || *sn.ExitCode != 0 {
		t.Fatalf("exit %+v %v", sn, err)
	}
	out, _ := s.Output()
	if !strings.Contains(out, "sum 14") {
		t.Errorf("output %q", out)
	}
	if err := s.Close(); err != nil {
		t.Error(err)
	}
	leftIn(t, tmp)
}

const pyProgram = `class Point:
    def __init__(self, x, y):
        self.x = x
        self.y = y


def total(points):
    t = 0
    for p in points:
        t += p.x * p.y
    return t


pts = [Point(1, 2), Point(3, 4)]
print("start")
print("sum", total(pts))
`

// debianPython is the interpreter with Debian's debugpy (the PATH's may lack it).
const debianPython = "/usr/bin/python3"

func TestDebugpySession(t *testing.T) {
	dir := t.TempDir()
	prog := write(t, dir, "prog.py", pyProgram)
	u := need(t, "debugpy", dir, debianPython)
	ctx := context.Background()
	s, err := Launch(ctx, u, prog, nil, map[string][]int{prog: {10}}, Options{Dir: dir})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	sn, err := s.Wait(ctx, 0, time.Minute)
	if err != nil || sn.State != Stopped {
		t.Fatalf("first stop: %+v %v", sn, err)
	}
	frames, _, err := s.Stack(ctx, sn.ThreadID, 5)
	if err != nil || len(frames) == 0 || frames[0].Line != 10 {
		t.Fatalf("stack %+v %v", frames, err)
	}
	ev, err := s.Evaluate(ctx, "p.x * p.y", frames[0].Id)
	if err != nil || ev.Result != "2" {
		t.Fatalf("evaluate %+v %v", ev, err)
	}
	if _, err := s.SetBreakpoints(ctx, prog, nil); err != nil {
		t.Fatal(err)
	}
	sn, err = s.Resume(ctx, "continue", sn.ThreadID, time.Minute)
	if err != nil || sn.State != Exited || sn.ExitCode == nil || *sn.ExitCode != 0 {
		t.Fatalf("exit %+v %v", sn, err)
	}
	out, _ := s.Output()
	if !strings.Contains(out, "sum 14") {
		t.Errorf("output %q", out)
	}
}

const cProgram = `#include <stdio.h>

struct point { int x, y; };

int total(struct point *ps, int n) {
  int t = 0;
  for (int i = 0; i < n; i++) {
    t += ps[i].x * ps[i].y;
  }
  return t;
}

int main(void) {
  struct point ps[] = {{1, 2}, {3, 4}};
  printf("start\n");
  printf("sum %d\n", total(ps, 2));
  return 0;
}
`

func TestLLDBSession(t *testing.T) {
	dir := t.TempDir()
	src := write(t, dir, "prog.c", cProgram)
	u := need(t, "lldb", dir, "")
	bin := filepath.Join(dir, "prog")
	if out, err := exec.Command("cc", "-g", "-O0", "-o", bin, src).CombinedOutput(); err != nil {
		t.Fatalf("cc: %v %s", err, out)
	}
	ctx := context.Background()
	s, err := Launch(ctx, u, bin, nil, map[string][]int{src: {8}}, Options{Dir: dir})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	sn, err := s.Wait(ctx, 0, time.Minute)
	if err != nil || sn.State != Stopped {
		t.Fatalf("first stop: %+v %v", sn, err)
	}
	frames, _, err := s.Stack(ctx, sn.ThreadID, 5)
	if err != nil || len(frames) == 0 || frames[0].Line != 8 {
		t.Fatalf("stack %+v %v", frames, err)
	}
	ev, err := s.Evaluate(ctx, "ps[i].x * ps[i].y", frames[0].Id)
	if err != nil || ev.Result != "2" {
		t.Fatalf("evaluate %+v %v", ev, err)
	}
	if _, err := s.SetBreakpoints(ctx, src, nil); err != nil {
		t.Fatal(err)
	}
	sn, err = s.Resume(ctx, "continue", sn.ThreadID, time.Minute)
	if err != nil || sn.State != Exited || sn.ExitCode == nil || *sn.ExitCode != 0 {
		t.Fatalf("exit %+v %v", sn, err)
	}
	out, _ := s.Output()
	if !strings.Contains(out, "sum 14") {
		t.Errorf("output %q", out)
	}
}
