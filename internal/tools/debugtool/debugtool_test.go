package debugtool

import (
	"bufio"
	"context"
	"encoding/json"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/gantry-dev/gantry/internal/dap"
	"github.com/gantry-dev/gantry/internal/procgroup"
	"github.com/gantry-dev/gantry/internal/testenv"
	"github.com/gantry-dev/gantry/internal/tool"
)

// debianPython is the interpreter with Debian's debugpy (the PATH's may lack it).
const debianPython = "/usr/bin/python3"

// need ends a test whose adapter cannot run here as testenv.Missing says.
func need(t *testing.T, id, dir string) {
	t.Helper()
	for _, s := range dap.Defaults() {
		if s.ID == id {
			if u := dap.Check(context.Background(), &s, dir, debianPython, nil); u.Why != "" {
				testenv.Missing(t, u.Why)
			}
			return
		}
	}
	t.Fatalf("no adapter %s", id)
}

type A map[string]any

type harness struct {
	t     *testing.T
	d     *Debugger
	dir   string
	files tool.FileGuard // the calls' file guard (nil: none)
}

func newHarness(t *testing.T, o Options) *harness {
	if o.Python == "" {
		o.Python = debianPython
	}
	if o.Wait == 0 {
		o.Wait = 20 * time.Second
	}
	d := New(o)
	h := &harness{t: t, d: d, dir: t.TempDir()}
	t.Cleanup(func() {
		if err := d.Close(context.Background()); err != nil {
			t.Error(err)
		}
		noProcessUnder(t, h.dir)
	})
	return h
}

func (h *harness) write(name, text string) string {
	h.t.Helper()
	p := filepath.Join(h.dir, name)
	if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
		h.t.Fatal(err)
	}
	return p
}

func (h *harness) call(a A) tool.Result {
	h.t.Helper()
	raw, _ := json.Marshal(a)
	inv, msg := h.d.Tools()[0].Decode(tool.Env{Cwd: h.dir, Files: h.files}, raw)
	if msg != "" {
		return tool.Fail(msg)
	}
	return inv.Run(context.Background())
}

// line calls and returns what the terminal UI and print mode show of it on one line
// (termtext.BriefLine): the icon, the title, and the result's summary.
func (h *harness) line(a A) string {
	h.t.Helper()
	raw, _ := json.Marshal(a)
	tl := h.d.Tools()[0]
	inv, msg := tl.Decode(tool.Env{Cwd: h.dir}, raw)
	if msg != "" {
		h.t.Fatal(msg)
	}
	c, r := tool.Describe(tl, inv), inv.Run(context.Background())
	mark := " → "
	if r.IsError {
		mark = " ✗ "
	}
	return c.Icon + " " + c.Title + mark + tool.Summary(r)
}

// ok calls and wants a result holding every part.
func (h *harness) ok(a A, parts ...string) tool.Result {
	h.t.Helper()
	r := h.call(a)
	if r.IsError {
		h.t.Fatalf("%v: unexpected error: %s", a, r.Text)
	}
	for _, p := range parts {
		if !strings.Contains(r.Text, p) {
			h.t.Fatalf("%v: %q not in:\n%s", a, p, r.Text)
		}
	}
	return r
}

// fails calls and wants an error holding every part.
func (h *harness) fails(a A, parts ...string) tool.Result {
	h.t.Helper()
	r := h.call(a)
	if !r.IsError {
		h.t.Fatalf("%v: wanted an error, got:\n%s", a, r.Text)
	}
	for _, p := range parts {
		if !strings.Contains(r.Text, p) {
			h.t.Fatalf("%v: %q not in the error:\n%s", a, p, r.Text)
		}
	}
	return r
}

var (
	frameRe = regexp.MustCompile(`\[frame_id (\d+)\]`)
	refRe   = regexp.MustCompile(`reference (\d+)`)
)

func firstInt(t *testing.T, re *regexp.Regexp, text string) int {
	t.Helper()
	m := re.FindStringSubmatch(text)
	if m == nil {
		t.Fatalf("no %s in:\n%s", re, text)
	}
	n, _ := strconv.Atoi(m[1])
	return n
}

// lineWith is the first line of text that starts with prefix.
func lineWith(t *testing.T, text, prefix string) string {
	t.Helper()
	for l := range strings.Lines(text) {
		if strings.HasPrefix(l, prefix) {
			return l
		}
	}
	t.Fatalf("no line starting %q in:\n%s", prefix, text)
	return ""
}

// noProcessUnder fails when a process still runs whose command line names dir (the
// adapter, the debuggee, a build).
func noProcessUnder(t *testing.T, dir string) {
	t.Helper()
	entries, _ := os.ReadDir("/proc")
	for _, e := range entries {
		if _, err := strconv.Atoi(e.Name()); err != nil {
			continue
		}
		b, err := os.ReadFile("/proc/" + e.Name() + "/cmdline")
		if err != nil || !strings.Contains(string(b), dir) {
			continue
		}
		if st, err := os.ReadFile("/proc/" + e.Name() + "/stat"); err == nil && strings.Contains(string(st), ") Z ") {
			continue
		}
		t.Errorf("process %s still runs: %s", e.Name(), strings.ReplaceAll(string(b), "\x00", " "))
	}
}

// A language's case: a program with a loop in a function called from its main.
type langCase struct {
	adapter string
	files   map[string]string
	build   func(t *testing.T, dir string) // nil: none
	program string                         // what launch runs
	source  string                         // the file of the breakpoints
	call    int                            // the line of main that calls the function
	body    int                            // the loop's body in the function
	fn, top string                         // the function's and main's frame names
	expr    string                         // evaluated at body: 2, then 12
	local   string                         // a structured local at body
	field   string                         // one of its fields as variables shows it
}

var cases = map[string]langCase{
	"go": {
		adapter: "delve",
		files: map[string]string{"go.mod": "module example.com/p\n\ngo 1.22\n", "main.go": `package main

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
`},
		program: ".", source: "main.go", call: 18, body: 10, fn: "main.sum", top: "main.main",
		expr: "p.X * p.Y", local: "p", field: "X = 1",
	},
	"python": {
		adapter: "debugpy",
		files: map[string]string{"prog.py": `class Point:
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
`},
		program: "prog.py", source: "prog.py", call: 16, body: 10, fn: "total", top: "<module>",
		expr: "p.x * p.y", local: "p", field: "x = 1",
	},
	"c": {
		adapter: "lldb",
		files: map[string]string{"prog.c": `#include <stdio.h>

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
`},
		build: func(t *testing.T, dir string) {
			if out, err := exec.Command("cc", "-g", "-O0", "-o", filepath.Join(dir, "prog"), filepath.Join(dir, "prog.c")).CombinedOutput(); err != nil {
				t.Fatalf("cc: %v %s", err, out)
			}
		},
		program: "prog", source: "prog.c", call: 16, body: 8, fn: "total", top: "main",
		expr: "ps[i].x * ps[i].y", local: "ps", field: "x = 1",
	},
}

func (h *harness) setup(c langCase) {
	h.t.Helper()
	need(h.t, c.adapter, h.dir)
	for name, text := range c.files {
		h.write(name, text)
	}
	if c.build != nil {
		c.build(h.t, h.dir)
	}
}

// Every operation on a real program, in Go, Python and C.
func TestDebugEveryOperation(t *testing.T) {
	for _, lang := range []string{"go", "python", "c"} {
		t.Run(lang, func(t *testing.T) {
			c := cases[lang]
			h := newHarness(t, Options{})
			h.setup(c)
			src := c.source
			h.ok(A{"operation": "breakpoints", "file": src, "lines": []int{c.call, c.body}}, "placed when a program is launched")
			h.ok(A{"operation": "status"}, "No debug session runs", src+":"+strconv.Itoa(c.body)+","+strconv.Itoa(c.call))

			r := h.ok(A{"operation": "launch", "program": c.program}, "Stopped (breakpoint", src+":"+strconv.Itoa(c.call))
			if loc := r.Display.Location; loc == nil || loc.Line != c.call || filepath.Base(loc.Path) != src {
				t.Errorf("the stop's location: %+v", loc)
			}
			if !strings.HasPrefix(r.Display.Note, "stopped at "+src+":"+strconv.Itoa(c.call)) {
				t.Errorf("note %q", r.Display.Note)
			}
			// A second launch while this one runs is refused, naming it.
			h.fails(A{"operation": "launch", "program": c.program}, "is running", c.adapter)
			h.ok(A{"operation": "threads"}, "(stopped here)")

			h.ok(A{"operation": "step_in"}, "Stopped (step", c.fn)
			h.ok(A{"operation": "continue"}, "Stopped (breakpoint", src+":"+strconv.Itoa(c.body))
			stack := h.ok(A{"operation": "stack"}, "#0 "+c.fn+" "+src+":"+strconv.Itoa(c.body), "#1 "+c.top)
			frame := firstInt(t, frameRe, stack.Text)
			scopes := h.ok(A{"operation": "scopes", "frame_id": frame}, "Locals")
			locals := h.ok(A{"operation": "variables", "reference": firstInt(t, refRe, lineWith(t, scopes.Text, "Locals"))}, c.local+" = ")
			ref := firstInt(t, refRe, lineWith(t, locals.Text, c.local+" = "))
			h.ok(A{"operation": "variables", "reference": ref}, c.field)
			h.ok(A{"operation": "evaluate", "expression": c.expr, "frame_id": frame}, "= 2")

			h.ok(A{"operation": "continue"}, "Stopped (breakpoint", src+":"+strconv.Itoa(c.body))
			h.ok(A{"operation": "evaluate", "expression": c.expr}, "= 12") // the top frame by default
			h.ok(A{"operation": "step_over"}, "Stopped (step")
			h.ok(A{"operation": "breakpoints", "file": src}, "Cleared")
			h.ok(A{"operation": "step_out"}, "Stopped (step", c.top)
			h.ok(A{"operation": "continue"}, "exited with code 0", "sum 14")
			h.ok(A{"operation": "status"}, "exited with code 0")
			h.ok(A{"operation": "terminate"}, "Terminated")
			h.fails(A{"operation": "stack"}, "No debug session runs")
		})
	}
}

// Output since the last call; a breakpoint that never hits lets the program run to
// its exit code.
func TestDebugOutputAndExit(t *testing.T) {
	h := newHarness(t, Options{})
	h.setup(cases["python"])
	h.write("prog2.py", "import sys\nprint('one')\nprint('two', file=sys.stderr)\n\n\ndef never():\n    return 1\n\n\nsys.exit(3)\n")
	h.ok(A{"operation": "breakpoints", "file": "prog2.py", "lines": []int{7}})
	// debugpy stops where an uncaught SystemExit with a code other than 0 is raised.
	h.ok(A{"operation": "launch", "program": "prog2.py"}, "Stopped (exception", "prog2.py:10")
	r := h.ok(A{"operation": "continue"}, "exited with code 3", "one", "two")
	if r.Display.Note != "exited (3)" {
		t.Errorf("note %q", r.Display.Note)
	}
	h.ok(A{"operation": "output"}, "No output since the last call")
}

// The terminal UI and print mode show one line per operation, with where it stopped.
func TestDebugLines(t *testing.T) {
	h := newHarness(t, Options{})
	h.setup(cases["python"])
	for _, c := range []struct {
		a    A
		want string
	}{
		{A{"operation": "breakpoints", "file": "prog.py", "lines": []int{10}}, "🐞 Debug: breakpoints prog.py:10 → 1 set before launch"},
		{A{"operation": "launch", "program": "prog.py"}, "🐞 Debug prog.py → stopped at prog.py:10 (breakpoint)"},
		{A{"operation": "step_over"}, "🐞 Debug: step over → stopped at prog.py:9 (step)"},
		{A{"operation": "evaluate", "expression": "t"}, "🐞 Debug: evaluate t → = 2"},
		{A{"operation": "continue"}, "🐞 Debug: continue → stopped at prog.py:10 (breakpoint)"},
		{A{"operation": "terminate"}, "🐞 Debug: terminate → terminated"},
		{A{"operation": "stack"}, "🐞 Debug: stack ✗ No debug session runs: launch a program (or attach to one) first."},
	} {
		if got := h.line(c.a); got != c.want {
			t.Errorf("%v:\n got %q\nwant %q", c.a, got, c.want)
		}
	}
}

// Pause stops a busy loop; terminate leaves no process (checked at cleanup).
func TestDebugPause(t *testing.T) {
	for _, lang := range []string{"go", "python", "c"} {
		t.Run(lang, func(t *testing.T) {
			c := cases[lang]
			h := newHarness(t, Options{Wait: 2 * time.Second})
			h.setup(c)
			switch lang {
			case "go":
				h.write("main.go", "package main\n\nfunc main() {\n\ti := 0\n\tfor {\n\t\ti++\n\t}\n}\n")
			case "python":
				h.write("prog.py", "i = 0\nwhile True:\n    i += 1\n")
			case "c":
				h.write("prog.c", "int main(void) {\n  volatile long i = 0;\n  for (;;) i++;\n}\n")
				c.build(t, h.dir)
			}
			h.ok(A{"operation": "launch", "program": c.program}, "Still running")
			h.fails(A{"operation": "stack"}, "needs it stopped")
			h.ok(A{"operation": "pause"}, "Stopped (pause")
			h.ok(A{"operation": "stack"}, "#0")
			h.ok(A{"operation": "terminate"}, "Terminated")
		})
	}
}

// freePort is a port of the loopback no one listens on (as of now).
func freePort(t *testing.T) int {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port
}

// startServer starts a debug server in dir, in a group of its own (killed at the
// end of the test), and returns once it printed a line matching ready.
func startServer(t *testing.T, dir string, ready *regexp.Regexp, argv ...string) *regexp.Regexp {
	t.Helper()
	cmd := exec.Command(argv[0], argv[1:]...)
	cmd.Dir = dir
	cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true}
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	cmd.Stderr = cmd.Stdout
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		procgroup.Kill(cmd.Process.Pid, time.Second)
		_ = cmd.Wait()
	})
	lines := make(chan string)
	go func() {
		sc := bufio.NewScanner(out)
		for sc.Scan() {
			lines <- sc.Text()
		}
		close(lines)
	}()
	for l := range lines {
		if ready.MatchString(l) {
			go func() {
				for range lines {
				}
			}()
			return ready
		}
	}
	t.Fatalf("%s ended before it was ready", argv[0])
	return nil
}

// attach to a delve headless server and to debugpy --listen.
func TestDebugAttach(t *testing.T) {
	t.Run("go", func(t *testing.T) {
		c := cases["go"]
		h := newHarness(t, Options{})
		h.setup(c)
		dlv := testenv.Need(t, "dlv")
		port := freePort(t)
		startServer(t, h.dir, regexp.MustCompile(`listening at`), dlv, "debug", "--headless", "--accept-multiclient",
			"--listen=127.0.0.1:"+strconv.Itoa(port), ".")
		h.ok(A{"operation": "breakpoints", "file": c.source, "lines": []int{c.body}})
		h.ok(A{"operation": "attach", "port": port, "adapter": "delve"}, "Attached to port", "Stopped (breakpoint", c.source+":"+strconv.Itoa(c.body))
		h.ok(A{"operation": "evaluate", "expression": c.expr}, "= 2")
		h.ok(A{"operation": "terminate"}, "Terminated")
	})
	t.Run("python", func(t *testing.T) {
		c := cases["python"]
		h := newHarness(t, Options{})
		h.setup(c)
		port := freePort(t)
		// debugpy's command line; its log says when it waits for a client.
		startServer(t, h.dir, regexp.MustCompile(`wait_for_client\(\)`), debianPython, "-m", "debugpy", "--log-to-stderr",
			"--listen", "127.0.0.1:"+strconv.Itoa(port), "--wait-for-client", "prog.py")
		h.ok(A{"operation": "breakpoints", "file": c.source, "lines": []int{c.body}})
		h.ok(A{"operation": "attach", "port": port, "adapter": "debugpy"}, "Stopped (breakpoint", c.source+":"+strconv.Itoa(c.body))
		h.ok(A{"operation": "evaluate", "expression": c.expr}, "= 2")
		h.ok(A{"operation": "terminate"}, "Terminated")
	})
}

// A session ends at its time to live; the next call says so.
func TestDebugExpires(t *testing.T) {
	h := newHarness(t, Options{TTL: time.Second})
	h.setup(cases["python"])
	expired := make(chan struct{})
	h.d.onExpire = func() { close(expired) }
	h.ok(A{"operation": "breakpoints", "file": "prog.py", "lines": []int{10}})
	h.ok(A{"operation": "launch", "program": "prog.py"}, "Stopped (breakpoint")
	testenv.Recv(t, expired, testenv.Bound, "the session to expire after its 1 s to live")
	h.fails(A{"operation": "stack"}, "expired after 1s")
	h.fails(A{"operation": "stack"}, "No debug session runs")
}

// An adapter that dies mid-session is reported, and the session is gone.
func TestDebugAdapterCrash(t *testing.T) {
	h := newHarness(t, Options{})
	h.setup(cases["python"])
	h.ok(A{"operation": "breakpoints", "file": "prog.py", "lines": []int{10}})
	h.ok(A{"operation": "launch", "program": "prog.py"}, "Stopped (breakpoint")
	h.d.mu.Lock()
	s := h.d.sess
	h.d.mu.Unlock()
	if err := syscall.Kill(s.Pid(), syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	testenv.Recv(t, s.Done(), testenv.Bound, "the killed adapter's session to end")
	h.fails(A{"operation": "stack"}, "debugpy adapter ended unexpectedly")
	h.fails(A{"operation": "stack"}, "No debug session runs")
	h.ok(A{"operation": "launch", "program": "prog.py"}, "Stopped (breakpoint") // a new session starts
}

// Bad input: one sentence each.
func TestDebugBadInput(t *testing.T) {
	h := newHarness(t, Options{})
	h.setup(cases["python"])
	h.fails(A{"operation": "rewind"}, "operation")
	h.fails(A{"operation": "evaluate", "expression": "1+1"}, "No debug session runs")
	h.fails(A{"operation": "evaluate"}, `needs an "expression"`)
	h.fails(A{"operation": "launch"}, `needs the "program"`)
	h.fails(A{"operation": "launch", "program": "missing.py"}, "missing.py does not exist")
	h.fails(A{"operation": "launch", "program": "prog.py", "adapter": "gdb"}, `no adapter "gdb"`)
	h.write("notes.txt", "hello\n")
	h.fails(A{"operation": "launch", "program": "notes.txt"}, "No adapter debugs notes.txt")
	h.fails(A{"operation": "breakpoints", "file": "prog.py", "lines": []int{99}}, "Line 99 is past the end of prog.py, which has 16 lines")
	h.fails(A{"operation": "breakpoints", "file": "gone.py", "lines": []int{1}}, "gone.py does not exist")
	h.fails(A{"operation": "attach"}, `needs the "port"`)
	h.fails(A{"operation": "attach", "port": freePort(t), "adapter": "debugpy"}, "no debug server answers on port")
	h.ok(A{"operation": "breakpoints", "file": "prog.py", "lines": []int{10}})
	h.ok(A{"operation": "launch", "program": "prog.py"}, "Stopped (breakpoint")
	h.fails(A{"operation": "scopes", "frame_id": 987654}, "debugpy adapter refused")
	h.fails(A{"operation": "variables", "reference": 987654}, "debugpy adapter refused")
	h.fails(A{"operation": "step_in", "thread_id": 987654}, "refused")
}

// adapters says what can run here and why not.
func TestDebugAdapters(t *testing.T) {
	dir := t.TempDir()
	specs := dap.Merge(dap.Defaults(), []dap.Spec{{ID: "delve", Commands: [][]string{{"no-such-dlv-here", "dap"}}}})
	d := New(Options{Specs: specs, Python: filepath.Join(dir, "no-python")})
	defer d.Close(context.Background())
	text := d.adapters(context.Background(), dir)
	for _, want := range []string{"delve: not usable — delve is not installed (looked for no-such-dlv-here)", "debugpy: not usable"} {
		if !strings.Contains(text, want) {
			t.Errorf("%q not in:\n%s", want, text)
		}
	}
	// A Python that lacks debugpy is named.
	if py, err := exec.LookPath("python3"); err == nil {
		if exec.Command(py, "-c", "import debugpy").Run() != nil {
			d := New(Options{Python: py})
			if text := d.adapters(context.Background(), dir); !strings.Contains(text, "cannot import debugpy") {
				t.Errorf("a python without debugpy: %s", text)
			}
		}
	}
}
