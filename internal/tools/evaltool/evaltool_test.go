package evaltool

import (
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/gantry-dev/gantry/internal/contain"
	"github.com/gantry-dev/gantry/internal/testenv"
	"github.com/gantry-dev/gantry/internal/tool"
)

// debianPython has Debian's pandas and matplotlib; a test's project gets a .venv of
// it (the PATH's python3 here is another build, without them).
const debianPython = "/usr/bin/python3"

type harness struct {
	t   *testing.T
	ks  *Kernels
	dir string
	// relayed are the tool calls cells made, in order.
	relayed []string
}

// newHarness makes a project with a .venv of Debian's Python (system packages
// visible), whose interpreter the tool finds by itself.
func newHarness(t *testing.T, o Options) *harness {
	t.Helper()
	testenv.NeedFile(t, debianPython, "Debian's Python")
	dir := t.TempDir()
	if out, err := exec.Command(debianPython, "-m", "venv", "--system-site-packages", "--without-pip", filepath.Join(dir, ".venv")).CombinedOutput(); err != nil {
		testenv.Missing(t, "no venv: "+string(out))
	}
	h := &harness{t: t, ks: New(o), dir: dir}
	t.Cleanup(func() {
		h.ks.Close(context.Background())
		noProcessUnder(t, dir)
	})
	return h
}

// relay stands for the loop: read_file reads, bash is refused (the gate's sentence).
func (h *harness) relay(_ context.Context, name string, input json.RawMessage) tool.Result {
	h.relayed = append(h.relayed, name+" "+string(input))
	switch name {
	case "read_file":
		var a struct{ Path string }
		_ = json.Unmarshal(input, &a)
		b, err := os.ReadFile(filepath.Join(h.dir, a.Path))
		if err != nil {
			return tool.Fail(err.Error())
		}
		return tool.Result{Text: string(b)}
	}
	return tool.Fail(name + " was refused: a deny rule.")
}

func (h *harness) call(a map[string]any) tool.Result {
	h.t.Helper()
	return h.callCtx(context.Background(), a)
}

func (h *harness) callCtx(ctx context.Context, a map[string]any) tool.Result {
	h.t.Helper()
	if a["description"] == nil {
		a["description"] = "run a small check of the kernel"
	}
	raw, _ := json.Marshal(a)
	inv, msg := h.ks.Tools()[0].Decode(tool.Env{Cwd: h.dir}, raw)
	if msg != "" {
		return tool.Fail(msg)
	}
	return inv.Run(tool.WithRelay(ctx, h.relay))
}

func (h *harness) ok(a map[string]any, parts ...string) tool.Result {
	h.t.Helper()
	r := h.call(a)
	if r.IsError {
		h.t.Fatalf("%v: unexpected error:\n%s", a["code"], r.Text)
	}
	for _, p := range parts {
		if !strings.Contains(r.Text, p) {
			h.t.Fatalf("%v: %q not in:\n%s", a["code"], p, r.Text)
		}
	}
	return r
}

func (h *harness) fails(a map[string]any, parts ...string) tool.Result {
	h.t.Helper()
	r := h.call(a)
	if !r.IsError {
		h.t.Fatalf("%v: wanted an error, got:\n%s", a["code"], r.Text)
	}
	for _, p := range parts {
		if !strings.Contains(r.Text, p) {
			h.t.Fatalf("%v: %q not in the error:\n%s", a["code"], p, r.Text)
		}
	}
	return r
}

func py(code string) map[string]any { return map[string]any{"code": code} }
func js(code string) map[string]any { return map[string]any{"code": code, "language": "javascript"} }

// noProcessUnder fails when a process still runs whose command line or working
// folder is under dir.
func noProcessUnder(t *testing.T, dir string) {
	t.Helper()
	entries, _ := os.ReadDir("/proc")
	for _, e := range entries {
		if _, err := strconv.Atoi(e.Name()); err != nil {
			continue
		}
		cwd, _ := os.Readlink("/proc/" + e.Name() + "/cwd")
		b, _ := os.ReadFile("/proc/" + e.Name() + "/cmdline")
		if !strings.HasPrefix(cwd, dir) && !strings.Contains(string(b), dir) {
			continue
		}
		if st, err := os.ReadFile("/proc/" + e.Name() + "/stat"); err == nil && strings.Contains(string(st), ") Z ") {
			continue
		}
		t.Errorf("process %s still runs: %s", e.Name(), strings.ReplaceAll(string(b), "\x00", " "))
	}
}

func TestPythonCells(t *testing.T) {
	h := newHarness(t, Options{})
	h.ok(py("import sys\nx = 41\nsys.prefix"), filepath.Join(h.dir, ".venv")) // the project's .venv was found
	h.ok(py("x += 1\nx"), "→ 42")
	h.ok(py("print('one'); display({'a': 1}); print('two', file=__import__('sys').stderr); 'last'"),
		"one\n{'a': 1}\n[stderr] two\n→ 'last'")
	h.ok(py("x;"), "(no output)") // a trailing ; shows no value
	r := h.fails(py("def f(n):\n    return 1 / n\n\nf(0)"), "Traceback", "<cell-", "in f", "ZeroDivisionError: division by zero")
	if strings.Contains(r.Text, "driver.py") {
		t.Errorf("the driver's frames are shown:\n%s", r.Text)
	}
	h.fails(py("def broken(:\n  pass"), "SyntaxError")
	h.ok(py("import asyncio\nawait asyncio.sleep(0)\n'awaited'"), "→ 'awaited'")
}

func TestPythonTablesAndFigures(t *testing.T) {
	h := newHarness(t, Options{})
	if h.call(py("import pandas, matplotlib")).IsError {
		testenv.Missing(t, "Debian's pandas and matplotlib are not installed (python3-pandas, python3-matplotlib)")
	}
	r := h.ok(py("import pandas as pd\ndf = pd.DataFrame({'name': ['a', 'b'], 'n': [1, 2]})\ndf"),
		"|  | name | n |", "| 0 | a | 1 |", "| 1 | b | 2 |", "[2 rows × 2 columns]")
	if len(r.Images) != 0 {
		t.Error("a table came with an image")
	}
	h.ok(py("pd.DataFrame({'v': range(1000)})"), "30 of 1000 rows shown", "| … |")
	h.ok(py("pd.DataFrame([[0] * 50])"), "20 of 50 columns shown")
	r = h.ok(py("import matplotlib.pyplot as plt\nplt.plot([1, 2, 3], [3, 1, 2])\nplt.title('t')\nprint('drawn')"), "drawn\n[image ")
	if len(r.Images) != 1 || r.Images[0].MediaType != "image/png" || !strings.HasPrefix(string(r.Images[0].Data), "\x89PNG") {
		t.Fatalf("the figure: %d images", len(r.Images))
	}
	if !strings.HasPrefix(r.Display.Note, "[image ") {
		t.Errorf("note %q", r.Display.Note)
	}
	if r := h.ok(py("1")); len(r.Images) != 0 {
		t.Error("a figure came back twice")
	}
}

func TestPythonIdioms(t *testing.T) {
	h := newHarness(t, Options{})
	os.MkdirAll(filepath.Join(h.dir, "sub"), 0o755)
	h.ok(py("!echo from-shell"), "from-shell")
	h.ok(py("files = !ls -d sub\nfiles"), "→ ['sub']")
	h.ok(py("%%bash\necho $((6 * 7))"), "42")
	h.ok(py("%cd sub\nimport os\nos.getcwd()"), filepath.Join(h.dir, "sub"))
	h.ok(py("%cd ..\n%timeit sum(range(10))"), "loops, best of 5")
	h.ok(py("%%timeit\nsum(range(100))"), "loops, best of 5")
	h.ok(py("!exit 3"), "[exit status 3]")

	// %pip: the next import sees what was installed, even a module imported before.
	pkg := filepath.Join(h.dir, "pkg")
	write := func(v int) {
		os.MkdirAll(filepath.Join(pkg, "gantry_probe"), 0o755)
		os.WriteFile(filepath.Join(pkg, "pyproject.toml"), []byte("[build-system]\nrequires = [\"setuptools\"]\nbuild-backend = \"setuptools.build_meta\"\n\n[project]\nname = \"gantry-probe\"\nversion = \"1."+strconv.Itoa(v)+"\"\n"), 0o644)
		os.WriteFile(filepath.Join(pkg, "gantry_probe", "__init__.py"), []byte("VALUE = "+strconv.Itoa(v)+"\n"), 0o644)
	}
	write(1)
	if r := h.call(py("%pip install --no-index --no-build-isolation -q ./pkg\nimport gantry_probe\ngantry_probe.VALUE")); r.IsError || !strings.Contains(r.Text, "→ 1") {
		if strings.Contains(r.Text, "No module named pip") || strings.Contains(r.Text, "setuptools") {
			testenv.Missing(t, "pip or setuptools is missing for "+debianPython+": "+r.Text)
		}
		t.Fatalf("%%pip install:\n%s", r.Text)
	}
	write(2)
	h.ok(py("%pip install --no-index --no-build-isolation -q --upgrade ./pkg\nimport gantry_probe\ngantry_probe.VALUE"), "→ 2")
}

func TestJavaScriptCells(t *testing.T) {
	testenv.Need(t, "node")
	h := newHarness(t, Options{})
	h.ok(js("let a = 40\nconst b = 2\na + b"), "→ 42")
	h.ok(js("let a = 1; a"), "→ 1") // declared again
	h.ok(js("function twice(n) { return 2 * n }\nclass P { constructor(x) { this.x = x } }\ntwice(new P(4).x)"), "→ 8")
	h.ok(js("const r = await new Promise((res) => setTimeout(() => res('later'), 10)); r"), "→ 'later'")
	h.ok(js("const {x, y: [z]} = {x: 1, y: [2]}; x + z"), "→ 3")
	h.ok(js("console.log('out'); console.error('err'); display([1, 2]); 'v'"), "out\n[stderr] err\n[ 1, 2 ]\n→ 'v'")
	h.fails(js("function bad() { throw new TypeError('nope') }\nbad()"), "TypeError: nope", "<cell-")
	h.fails(js("let = ;"), "SyntaxError")
	h.ok(js("twice(5)"), "→ 10") // state survived the errors
	h.write("note.txt", "relayed text")
	h.ok(js("await tool('read_file', {path: 'note.txt'})"), "relayed text")
	h.ok(js("try { await tool('bash', {command: 'rm x'}) } catch (e) { console.log(e.name, e.message) }"), "ToolError bash was refused")
}

func (h *harness) write(name, text string) {
	if err := os.WriteFile(filepath.Join(h.dir, name), []byte(text), 0o644); err != nil {
		h.t.Fatal(err)
	}
}

// tool() from a cell: the relay's answer, a refusal as ToolError; no eval within eval.
func TestRelayedTools(t *testing.T) {
	h := newHarness(t, Options{})
	h.write("note.txt", "hello from a file\n")
	h.ok(py("print(tool('read_file', {'path': 'note.txt'}))"), "hello from a file")
	h.ok(py("try:\n    tool('bash', command='rm -rf x')\nexcept ToolError as e:\n    print('refused:', e)"), "refused: bash was refused: a deny rule.")
	h.ok(py("try:\n    tool('eval', code='1')\nexcept ToolError as e:\n    print(e)"), "A cell cannot run eval.")
	want := []string{`read_file {"path": "note.txt"}`, `bash {"command": "rm -rf x"}`}
	if len(h.relayed) != 2 || h.relayed[0] != want[0] || h.relayed[1] != want[1] {
		t.Errorf("relayed %q, want %q", h.relayed, want)
	}
	// The idle budget does not run while a relayed call does.
	h.ks.o.Idle = 300 * time.Millisecond
	slow := func(ctx context.Context, name string, input json.RawMessage) tool.Result {
		<-time.After(time.Second) // a relayed call longer than the budget
		return tool.Result{Text: "slow answer"}
	}
	raw, _ := json.Marshal(map[string]any{"code": "tool('read_file', {'path': 'note.txt'})", "description": "a slow relayed call"})
	inv, _ := h.ks.Tools()[0].Decode(tool.Env{Cwd: h.dir}, raw)
	if r := inv.Run(tool.WithRelay(context.Background(), slow)); r.IsError || !strings.Contains(r.Text, "slow answer") {
		t.Fatalf("a relayed call longer than the idle budget:\n%s", r.Text)
	}
}

// An endless cell is interrupted by the idle budget; the state survives a caught
// interrupt; a cell that ignores it loses the kernel, and the next call has a new one.
func TestInterrupts(t *testing.T) {
	h := newHarness(t, Options{Idle: 500 * time.Millisecond})
	h.ok(py("keep = 'kept'"))
	h.fails(py("while True:\n    pass"), "KeyboardInterrupt", "showed no sign of life for 500ms", "state survived")
	h.ok(py("keep"), "→ 'kept'")
	h.fails(py("import signal\nsignal.signal(signal.SIGINT, signal.SIG_IGN)\nwhile True:\n    pass"), "kernel was killed", "state is lost")
	h.fails(py("keep"), "NameError") // a new kernel
	// Cancelled from outside: the same path.
	ctx, cancel := context.WithCancel(context.Background())
	go func() {
		<-time.After(200 * time.Millisecond)
		cancel()
	}()
	if r := h.callCtx(ctx, py("import time\ntime.sleep(60)")); !r.IsError || !strings.Contains(r.Text, "the call was cancelled") {
		t.Fatalf("cancelled:\n%s", r.Text)
	}
	if testenv.Has(t, "node") {
		h.fails(js("for (;;) {}"), "Interrupted", "state survived")
		h.ok(js("1 + 1"), "→ 2")
	}
}

// 10 MB of output keeps the protocol whole and comes back as its head and tail; the
// loop's bound (tool.Fit) gives the model a command's short preview and saves what
// the kernel kept whole.
func TestHugeOutput(t *testing.T) {
	h := newHarness(t, Options{})
	r := h.ok(py("import sys\nfor i in range(1_000_000):\n    print('%09d' % i)\n'after'"), "000000000", "000999999", "characters", "→ 'after'")
	if r.Preview != tool.ShellPreview {
		t.Errorf("eval asks for the preview %+v, not a command's", r.Preview)
	}
	out := tool.NewOutputDir(filepath.Join(t.TempDir(), "outputs"), 0)
	fit := tool.Fit(r, 30000, out, "call")
	if n := len([]rune(fit.Text)); n > tool.ShellPreview.Chars || !strings.HasSuffix(fit.Text, "→ 'after'") || !strings.Contains(fit.Text, "The whole output is saved in ") {
		t.Errorf("the model reads %d characters:\n%s", n, fit.Text)
	}
	saved, err := os.ReadFile(filepath.Join(out.Dir, "call.txt"))
	if err != nil || string(saved) != r.Text {
		t.Errorf("the saved output is not the cell's whole text (%v)", err)
	}
	h.ok(py("import os\nos.system('head -c 10000000 /dev/zero | tr \"\\\\0\" x')\n'raw'"), "xxxx", "→ 'raw'")
	h.ok(py("1 + 1"), "→ 2")
}

// reset, a kernel killed from outside, a cell that closes the protocol.
func TestKernelLife(t *testing.T) {
	h := newHarness(t, Options{})
	h.ok(py("v = 1"))
	h.ok(map[string]any{"code": "'v' in globals()", "reset": true}, "was reset", "→ False")
	h.ok(py("v = 2"))
	k := h.ks.Kernel("python")
	if err := syscall.Kill(k.Pid(), syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	testenv.Recv(t, k.Ended(), testenv.Bound, "the killed kernel to be seen ended")
	h.ok(py("'v' in globals()"), "had ended", "→ False")
	h.fails(py("import os\nos.closerange(3, 1024)\nprint('closed')"), "kernel ended during the cell")
	h.ok(py("'after'"), "→ 'after'")
}

func TestBadInput(t *testing.T) {
	h := newHarness(t, Options{})
	raw, _ := json.Marshal(map[string]any{"code": "1"})
	if _, msg := h.ks.Tools()[0].Decode(tool.Env{Cwd: h.dir}, raw); !strings.Contains(msg, "description") {
		t.Errorf("missing description: %q", msg)
	}
	h.fails(map[string]any{"code": "1", "language": "ruby"}, "language")
	h.fails(map[string]any{"code": "1", "description": "x"}, "5 to 10 words")
	h.fails(map[string]any{"code": "  "}, `needs the cell's "code"`)
	ks := New(Options{Python: filepath.Join(h.dir, "no-python")})
	defer ks.Close(context.Background())
	raw, _ = json.Marshal(map[string]any{"code": "1", "description": "a check with a missing interpreter"})
	inv, _ := ks.Tools()[0].Decode(tool.Env{Cwd: h.dir}, raw)
	if r := inv.Run(context.Background()); !r.IsError || !strings.Contains(r.Text, "cannot start") {
		t.Errorf("no interpreter: %s", r.Text)
	}
}

// With a sandbox, the kernel runs in it: it writes in the project, not outside.
func TestKernelInTheSandbox(t *testing.T) {
	if b, why := contain.SandboxStatus(); b == contain.BackendNone {
		testenv.Missing(t, "no sandbox here: "+why)
	}
	var h *harness
	h = newHarness(t, Options{Policy: &contain.Policy{Sandbox: func() *contain.Sandbox {
		return &contain.Sandbox{Writable: []string{h.dir}}
	}}})
	h.ok(py("open('inside.txt', 'w').write('ok')"), "→ 2")
	outside := filepath.Join(filepath.Dir(h.dir), "gantry-eval-outside.txt")
	h.ok(py("try:\n    open("+strconv.Quote(outside)+", 'w')\n    print('wrote')\nexcept OSError as e:\n    print('refused', type(e).__name__)"), "refused")
	if _, err := os.Stat(outside); err == nil {
		os.Remove(outside)
		t.Fatal("the sandboxed kernel wrote outside the project")
	}
	h.ok(py("print(tool('read_file', {'path': 'inside.txt'}))"), "ok")
}

// With a sandbox, a cell that runs past its idle budget is interrupted inside the
// sandbox: the result says the kernel and its state survived, and they did.
func TestTimeoutInTheSandboxKeepsTheKernel(t *testing.T) {
	if b, why := contain.SandboxStatus(); b == contain.BackendNone {
		testenv.Missing(t, "no sandbox here: "+why)
	}
	var h *harness
	h = newHarness(t, Options{Idle: 500 * time.Millisecond, Policy: &contain.Policy{Sandbox: func() *contain.Sandbox {
		return &contain.Sandbox{Writable: []string{h.dir}}
	}}})
	h.ok(py("x = 41"))
	h.fails(py("while True: pass"), "the kernel and its state survived")
	h.ok(py("x + 1"), "→ 42")
}
