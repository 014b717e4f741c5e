package lsptool

import (
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gantry-dev/gantry/internal/lsp"
	"github.com/gantry-dev/gantry/internal/procgroup"
	"github.com/gantry-dev/gantry/internal/resource"
	"github.com/gantry-dev/gantry/internal/tool"
	"github.com/gantry-dev/gantry/internal/tools/fs"

	"github.com/gantry-dev/gantry/internal/testenv"
)

// The fixture projects and the servers npm installs for the tests.
var (
	projectsDir = filepath.Join("..", "..", "lsp", "testdata", "projects")
	nodeBinDir  = filepath.Join("..", "..", "lsp", "testdata", "servers", "node_modules", ".bin")
)

// nodeBin is the absolute path of an npm-installed test server, or a skip.
func nodeBin(t *testing.T, name string) string {
	t.Helper()
	p, err := filepath.Abs(filepath.Join(nodeBinDir, name))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(p); err != nil {
		testenv.Missing(t, name+" is not installed (npm ci --no-audit --no-fund --prefix internal/lsp/testdata/servers); skipping the real-server test")
	}
	return p
}

// clangdBin is the absolute path of clangd, or a skip.
func clangdBin(t *testing.T) string {
	t.Helper()
	for _, p := range []string{"/usr/bin/clangd-19", "/usr/lib/llvm-19/bin/clangd", "/usr/bin/clangd", "/usr/local/bin/clangd"} {
		if st, err := os.Stat(p); err == nil && !st.IsDir() {
			return p
		}
	}
	testenv.Missing(t, "clangd-19 is not installed (apt-get install clangd-19); skipping the real-server test")
	return ""
}

// absOnly resolves only absolute paths of executables: the tests never depend on PATH.
func absOnly(name string) (string, error) {
	if filepath.IsAbs(name) {
		if st, err := os.Stat(name); err == nil && !st.IsDir() && st.Mode()&0o111 != 0 {
			return name, nil
		}
	}
	return "", errors.New("not found: " + name)
}

// copyProject copies the fixture project lang into a temporary folder.
func copyProject(t *testing.T, lang string) string {
	t.Helper()
	dir := t.TempDir()
	if err := os.CopyFS(dir, os.DirFS(filepath.Join(projectsDir, lang))); err != nil {
		t.Fatal(err)
	}
	return dir
}

// serverManager is a Manager over rows (merged into the defaults), resolving only
// absolute paths. At cleanup its pool is closed and every server process group it
// started must be gone.
func serverManager(t *testing.T, rows ...lsp.Spec) *lsp.Manager {
	pool := resource.NewPool(nil)
	m := lsp.NewManager(pool, lsp.Options{Servers: lsp.Merge(lsp.Defaults(), rows), LookPath: absOnly})
	t.Cleanup(func() {
		var pids []int
		for _, k := range pool.Running() {
			if c, ok := resource.Peek[*lsp.Client](pool, k); ok {
				pids = append(pids, c.Pid())
			}
		}
		if err := pool.Close(context.Background()); err != nil {
			t.Error(err)
		}
		for _, pid := range pids {
			if procgroup.Alive(pid) {
				t.Errorf("the process group of server %d is still there after the pool closed", pid)
			}
		}
	})
	return m
}

// serverCase is one call of a tool and what its answer must hold.
type serverCase struct {
	name string
	tool string // "lsp" (default) or "lsp_rename"
	args A
	want []string
	// none: each of want must be absent instead.
	none []string
	err  bool
}

func runCases(t *testing.T, m *lsp.Manager, dir string, cases []serverCase) {
	t.Helper()
	tools := map[string]tool.Tool{"lsp": Tool(m, Options{}), "lsp_rename": Rename(m)}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			name := c.tool
			if name == "" {
				name = "lsp"
			}
			r := call(t, tools[name], dir, c.args)
			if c.err {
				wantError(t, r, c.want...)
			} else {
				wantText(t, r, c.want...)
			}
			for _, n := range c.none {
				if strings.Contains(r.Text, n) {
					t.Fatalf("result has %q:\n%s", n, r.Text)
				}
			}
			if strings.Count(strings.TrimSpace(r.Text), "\n") == 0 && strings.HasPrefix(r.Text, "The ") && !strings.HasSuffix(r.Text, ".") {
				t.Fatalf("a one-sentence answer without its full stop: %q", r.Text)
			}
		})
	}
}

func TestPyright(t *testing.T) {
	bin := nodeBin(t, "pyright-langserver")
	checker := nodeBin(t, "pyright")
	dir := copyProject(t, "python")
	m := serverManager(t, lsp.Spec{Name: "pyright", Commands: []string{bin}, Args: []string{"--stdio"}, Checker: checker})
	runCases(t, m, dir, []serverCase{
		{name: "symbols query before any file is open", args: A{"action": "symbols", "query": "Shape"}, want: []string{"shapes.py:6: class Shape"}},
		{name: "definition", args: A{"action": "definition", "file": "main.py", "line": 9, "symbol": "total"},
			want: []string{"total.py:6: def total(all_shapes: list[Shape]) -> float:"}},
		{name: "type_definition", args: A{"action": "type_definition", "file": "main.py", "line": 6, "symbol": "sq"},
			want: []string{"shapes.py:14: class Square(Shape):"}},
		{name: "implementation", args: A{"action": "implementation", "file": "shapes.py", "line": 10, "symbol": "area"},
			want: []string{"The pyright language server offers no implementation lookup (it does not implement textDocument/implementation)."}},
		{name: "references", args: A{"action": "references", "file": "main.py", "line": 6, "symbol": "new_square"},
			want: []string{"main.py:3: from shapes import", "main.py:6: sq = new_square(3)", "main.py:7: big = new_square(10)",
				"shapes.py:25: def new_square"}},
		{name: "hover", args: A{"action": "hover", "file": "main.py", "line": 9, "symbol": "total"},
			want: []string{"def total(all_shapes: list[Shape]) -> float", "Return the sum of the areas of all the shapes."}},
		{name: "symbols file", args: A{"action": "symbols", "file": "shapes.py"},
			want: []string{"shapes.py:6: class Shape", "shapes.py:10:   method area", "shapes.py:14: class Square",
				"shapes.py:20:   method area", "shapes.py:25: func new_square"}},
		{name: "code_actions", args: A{"action": "code_actions", "file": "noimport.py", "line": 6, "symbol": "new_square"},
			want: []string{"The pyright language server offers no code action on line 6 of noimport.py."}},
		{name: "diagnostics file", args: A{"action": "diagnostics", "file": "broken.py"},
			want: []string{`broken.py:3: error: Type "Literal['three']" is not assignable to declared type "int"`}},
		{name: "diagnostics missing import", args: A{"action": "diagnostics", "file": "noimport.py"},
			want: []string{`noimport.py:6: error: "new_square" is not defined [reportUndefinedVariable]`}},
		{name: "diagnostics clean", args: A{"action": "diagnostics", "file": "main.py"}, want: []string{"main.py has no diagnostics."}},
		{name: "diagnostics project", args: A{"action": "diagnostics", "file": "*"},
			want: []string{"$ " + checker + " (in .)", `"Literal['three']" is not assignable to declared type "int"`, `"new_square" is not defined`}},
		{name: "rename", tool: "lsp_rename", args: A{"file": "total.py", "line": 6, "symbol": "total", "new_name": "sum_areas"},
			want: []string{"Renamed total to sum_areas in 2 file(s): main.py, total.py.", "+def sum_areas(", "+print(sum_areas(everything))"}},
		{name: "after rename", args: A{"action": "definition", "file": "main.py", "line": 9, "symbol": "sum_areas"},
			want: []string{"total.py:6: def sum_areas("}},
		{name: "status", args: A{"action": "status"}, want: []string{"Python: pyright runs for " + dir}},
	})
}

func TestTypeScript(t *testing.T) {
	bin := nodeBin(t, "typescript-language-server")
	tsc := nodeBin(t, "tsc")
	dir := copyProject(t, "ts")
	m := serverManager(t, lsp.Spec{Name: "typescript", Commands: []string{bin}, Args: []string{"--stdio"}, Checker: tsc + " --noEmit"})
	runCases(t, m, dir, []serverCase{
		{name: "symbols query before any file is open", args: A{"action": "symbols", "query": "Shape"}, want: []string{"src/shapes.ts:2: interface Shape"}},
		{name: "definition", args: A{"action": "definition", "file": "src/main.ts", "line": 7, "symbol": "total"},
			want: []string{"src/total.ts:4: export function total(all: Shape[]): number {"}},
		{name: "type_definition", args: A{"action": "type_definition", "file": "src/main.ts", "line": 4, "symbol": "sq"},
			want: []string{"src/shapes.ts:8: export class Square implements Shape {"}},
		{name: "implementation", args: A{"action": "implementation", "file": "src/shapes.ts", "line": 4, "symbol": "area"},
			want: []string{"src/shapes.ts:12: area(): number {"}},
		{name: "references", args: A{"action": "references", "file": "src/main.ts", "line": 4, "symbol": "newSquare"},
			want: []string{"src/main.ts:1: import { newSquare", "src/main.ts:4: const sq", "src/main.ts:5: const big",
				"src/shapes.ts:18: export function newSquare"}},
		{name: "hover", args: A{"action": "hover", "file": "src/main.ts", "line": 7, "symbol": "total"},
			want: []string{"(alias) total(all: Shape[]): number", "Returns the sum of the areas of all the shapes."}},
		{name: "symbols file", args: A{"action": "symbols", "file": "src/shapes.ts"},
			want: []string{"src/shapes.ts:2: interface Shape", "src/shapes.ts:8: class Square", "src/shapes.ts:18: func newSquare"}},
		{name: "code_actions", args: A{"action": "code_actions", "file": "src/noimport.ts", "line": 3, "symbol": "newSquare"},
			want: []string{`Add import from "./shapes" [quickfix]`}},
		{name: "diagnostics file", args: A{"action": "diagnostics", "file": "src/broken.ts"},
			want: []string{"src/broken.ts:2: error: Type 'string' is not assignable to type 'number'. [2322]"}},
		{name: "diagnostics clean", args: A{"action": "diagnostics", "file": "src/main.ts"}, want: []string{"src/main.ts has no diagnostics."}},
		{name: "diagnostics project", args: A{"action": "diagnostics", "file": "*"},
			want: []string{"$ " + tsc + " --noEmit (in .)", "src/broken.ts(2,14): error TS2322", "src/noimport.ts(3,10): error TS2304"}},
		{name: "rename", tool: "lsp_rename", args: A{"file": "src/total.ts", "line": 4, "symbol": "total", "new_name": "sumAreas"},
			want: []string{"Renamed total to sumAreas in 2 file(s): src/main.ts, src/total.ts.", "+export function sumAreas(",
				"+console.log(sumAreas(everything));"}},
		{name: "status", args: A{"action": "status"}, want: []string{"TypeScript: typescript runs for " + dir}},
	})
}

func TestClangd(t *testing.T) {
	bin := clangdBin(t)
	dir := copyProject(t, "c")
	in, err := os.ReadFile(filepath.Join(dir, "compile_commands.json.in"))
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "compile_commands.json"), []byte(strings.ReplaceAll(string(in), "${DIR}", dir)), 0o644); err != nil {
		t.Fatal(err)
	}
	m := serverManager(t, lsp.Spec{Name: "clangd", Commands: []string{bin}})
	runCases(t, m, dir, []serverCase{
		// With the index, clangd goes to the definition in shapes.c (without it, to the
		// declaration in shapes.h: TestClangdWithoutIndex).
		{name: "definition", args: A{"action": "definition", "file": "main.c", "line": 9, "symbol": "square_area"},
			want: []string{"shapes.c:3: double square_area(const struct square *s)"}},
		{name: "definition of the declaration", args: A{"action": "definition", "file": "shapes.h", "line": 11, "symbol": "square_area"},
			want: []string{"shapes.c:3: double square_area(const struct square *s)"}},
		{name: "type_definition", args: A{"action": "type_definition", "file": "main.c", "line": 7, "symbol": "sq"},
			want: []string{"shapes.h:6: struct square {"}},
		{name: "implementation", args: A{"action": "implementation", "file": "shapes.h", "line": 11, "symbol": "square_area"},
			want: []string{"The clangd language server found no implementation there."}},
		{name: "references", args: A{"action": "references", "file": "main.c", "line": 9, "symbol": "square_area"},
			want: []string{"main.c:9: printf", "shapes.c:3: double square_area", "shapes.h:11: double square_area"}},
		{name: "hover", args: A{"action": "hover", "file": "main.c", "line": 9, "symbol": "square_area"},
			want: []string{"function square_area", `provided by "shapes.h"`, "Returns the area of the square s, side times side."}},
		{name: "symbols file", args: A{"action": "symbols", "file": "shapes.h"},
			want: []string{"shapes.h:6: class square", "shapes.h:7:   field side", "shapes.h:11: func square_area", "shapes.h:14: func new_square"}},
		{name: "symbols query", args: A{"action": "symbols", "query": "square"},
			want: []string{"shapes.h:6: class square", "func square_area", "func new_square"}},
		{name: "code_actions", args: A{"action": "code_actions", "file": "noimport.c", "line": 5, "symbol": "strlen"},
			want: []string{"Include <string.h> for symbol strlen"}},
		{name: "diagnostics file", args: A{"action": "diagnostics", "file": "broken.c"},
			want: []string{"broken.c:7: error: No member named 'radius' in 'struct square'"}},
		{name: "diagnostics clean", args: A{"action": "diagnostics", "file": "main.c"}, want: []string{"main.c has no diagnostics."}},
		{name: "diagnostics project", args: A{"action": "diagnostics", "file": "*"}, err: true,
			want: []string{"No project checker applies here"}},
		{name: "rename", tool: "lsp_rename", args: A{"file": "main.c", "line": 7, "symbol": "new_square", "new_name": "make_square"},
			want: []string{"Renamed new_square to make_square in 3 file(s): main.c, shapes.c, shapes.h.", "+struct square make_square(double side);"}},
		{name: "status", args: A{"action": "status"}, want: []string{"C/C++: clangd runs for " + dir}},
	})
}

// TestClangdWithoutIndex: compile_flags.txt alone is a root (no background index,
// so no progress to wait for).
func TestClangdWithoutIndex(t *testing.T) {
	bin := clangdBin(t)
	dir := copyProject(t, "c")
	m := serverManager(t, lsp.Spec{Name: "clangd", Commands: []string{bin}})
	runCases(t, m, dir, []serverCase{
		{name: "definition", args: A{"action": "definition", "file": "main.c", "line": 9, "symbol": "square_area"},
			want: []string{"shapes.h:11: double square_area(const struct square *s);"}},
		{name: "diagnostics file", args: A{"action": "diagnostics", "file": "noimport.c"},
			want: []string{"noimport.c:5: error: Call to undeclared library function 'strlen'"}},
		{name: "references", args: A{"action": "references", "file": "main.c", "line": 9, "symbol": "square_area"},
			want: []string{"main.c:9: printf"}},
	})
}

// TestTypeScriptDiagnosticsOnWrite: a new error is reported exactly once, the old
// one never.
func TestTypeScriptDiagnosticsOnWrite(t *testing.T) {
	bin := nodeBin(t, "typescript-language-server")
	dir := copyProject(t, "ts")
	m := serverManager(t, lsp.Spec{Name: "typescript", Commands: []string{bin}, Args: []string{"--stdio"}})
	ed := OnWrite(fs.EditFile(fs.Options{}), m, NewSeen())
	editTS := func(old, new string) tool.Result {
		return call(t, ed, dir, A{"path": "src/broken.ts", "edits": []A{{"old": old, "new": new}}})
	}
	r := editTS("export const count", "export const other: string = 1;\nexport const count")
	got := reported(r)
	if len(got) != 1 || !strings.Contains(got[0], "src/broken.ts:2: error: Type 'number' is not assignable to type 'string'. [2322]") {
		t.Fatalf("want exactly the new error, got %q in:\n%s", got, r.Text)
	}
	r = editTS("/** One type error. */", "/** Two type errors. */")
	if got := reported(r); got != nil {
		t.Fatalf("an unrelated edit reported %q", got)
	}
}

// TestTypeScriptCleanWrite: typescript-language-server publishes nothing for a
// clean file that stays clean, so its clean probe (tsserver's own diagnostics of the
// file) ends the wait: a clean write, and a query after a change outside gantry, say
// so instead of running to the bound; an error introduced is still reported, once,
// and again when it comes back right after its fix.
func TestTypeScriptCleanWrite(t *testing.T) {
	bin := nodeBin(t, "typescript-language-server")
	dir := copyProject(t, "ts")
	m := serverManager(t, lsp.Spec{Name: "typescript", Commands: []string{bin}, Args: []string{"--stdio"}})
	ed := OnWrite(fs.EditFile(fs.Options{}), m, NewSeen())
	edit := func(old, new string) tool.Result {
		return call(t, ed, dir, A{"path": "src/total.ts", "edits": []A{{"old": old, "new": new}}})
	}
	steps := []struct {
		name, old, new string
		want           []string // the new diagnostics, by prefix
	}{
		{"a comment", "/** Returns", "// Sums.\n/** Returns", nil},
		{"a type error", "let sum = 0;", "let sum = 0;\n  const label: string = sum;\n  void label;", []string{"src/total.ts:7: error: Type 'number' is not assignable to type 'string'. [2322]"}},
		{"the fix", "const label: string = sum;", "const label: string = String(sum);", nil},
		// At once, before the server's late empty publish of the fix: the fix's
		// clean probe made the file's diagnostics none, so the error is new again.
		{"the error again", "const label: string = String(sum);", "const label: string = sum;", []string{"src/total.ts:7: error: Type 'number' is not assignable to type 'string'. [2322]"}},
		{"the fix again", "const label: string = sum;", "const label: string = String(sum);", nil},
		{"another comment", "// Sums.", "// Sums the areas.", nil},
	}
	for _, st := range steps {
		r := edit(st.old, st.new)
		got := reported(r)
		if len(got) != len(st.want) {
			t.Fatalf("%s: new diagnostics %q, want %q", st.name, got, st.want)
		}
		for i := range got {
			if !strings.HasPrefix(got[i], st.want[i]) {
				t.Fatalf("%s: new diagnostics %q, want %q", st.name, got, st.want)
			}
		}
	}
	// Changed outside gantry: the query sends the new text and is told at once.
	p := filepath.Join(dir, "src", "total.ts")
	data, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, append(data, []byte("\n// Written by hand.\n")...), 0o644); err != nil {
		t.Fatal(err)
	}
	wantText(t, call(t, Tool(m, Options{}), dir, A{"action": "diagnostics", "file": "src/total.ts"}), "src/total.ts has no diagnostics.")
}

func TestRustAnalyzerMissing(t *testing.T) {
	dir := t.TempDir()
	writeTree(t, dir, map[string]string{"Cargo.toml": "[package]\nname = \"x\"\nversion = \"0.1.0\"\n", "src/main.rs": "fn main() {}\n"})
	m := serverManager(t, lsp.Spec{Name: "rust-analyzer", Commands: []string{"/nonexistent/gantry-no-such-rust-analyzer"}})
	tl := Tool(m, Options{})
	wantText(t, call(t, tl, dir, A{"action": "status"}),
		"Rust: rust-analyzer not started: "+dir+" has a marker but /nonexistent/gantry-no-such-rust-analyzer is not installed")
	wantError(t, call(t, tl, dir, A{"action": "hover", "file": "src/main.rs", "line": 1, "symbol": "main"}),
		"No language server can serve main.rs: rust-analyzer would serve "+dir+" but /nonexistent/gantry-no-such-rust-analyzer is not installed.")
}

// goplsBin is the absolute path of gopls in Go's bin folder, or a skip.
func goplsBin(t *testing.T) string {
	t.Helper()
	out, _ := exec.Command("go", "env", "GOPATH").Output()
	for _, gp := range filepath.SplitList(strings.TrimSpace(string(out))) {
		if p := filepath.Join(gp, "bin", "gopls"); func() bool { _, err := absOnly(p); return err == nil }() {
			return p
		}
	}
	testenv.Missing(t, "gopls is not installed (go install golang.org/x/tools/gopls@v0.23.0); skipping the real-server test")
	return ""
}

// TestGoplsFixtures runs the Go fixture's cases (the same shapes as the other
// servers'); the older gopls tests use projects of their own.
func TestGoplsFixtures(t *testing.T) {
	bin := goplsBin(t)
	dir := copyProject(t, "go")
	m := serverManager(t, lsp.Spec{Name: "gopls", Commands: []string{bin}})
	runCases(t, m, dir, []serverCase{
		{name: "definition", args: A{"action": "definition", "file": "main.go", "line": 13, "symbol": "Total"},
			want: []string{"total.go:6: func Total(all []shapes.Shape) float64 {"}},
		{name: "type_definition", args: A{"action": "type_definition", "file": "main.go", "line": 11, "symbol": "sq"},
			want: []string{"shapes/shapes.go:11: type Square struct {"}},
		{name: "implementation", args: A{"action": "implementation", "file": "shapes/shapes.go", "line": 7, "symbol": "Area"},
			want: []string{"shapes/shapes.go:16: func (s Square) Area() float64 {"}},
		{name: "references", args: A{"action": "references", "file": "shapes/shapes.go", "line": 5, "symbol": "Shape"},
			want: []string{"shapes/shapes.go:5: type Shape interface {", "total.go:6: func Total", "main.go:13: fmt.Println"}},
		{name: "hover", args: A{"action": "hover", "file": "main.go", "line": 13, "symbol": "Total"},
			want: []string{"Total returns the sum of the areas of all the shapes."}},
		{name: "symbols file", args: A{"action": "symbols", "file": "shapes/shapes.go"},
			want: []string{"shapes/shapes.go:5: interface Shape", "shapes/shapes.go:11: struct Square", "shapes/shapes.go:21: func NewSquare"}},
		{name: "symbols query", args: A{"action": "symbols", "query": "Square"},
			want: []string{"shapes/shapes.go:11: struct Square", "func NewSquare"}, none: []string{"Zanabazar"}},
		{name: "code_actions", args: A{"action": "code_actions", "file": "noimport/noimport.go", "line": 6, "symbol": "strings"},
			want: []string{`Add import:  "strings" [quickfix]`}},
		{name: "diagnostics file", args: A{"action": "diagnostics", "file": "broken/broken.go"},
			want: []string{`broken/broken.go:5: error: cannot use "three" (untyped string constant) as int value in variable declaration`}},
		{name: "diagnostics project", args: A{"action": "diagnostics", "file": "*"},
			want: []string{"$ go vet ./... (in .)", "undefined: strings"}},
		{name: "rename", tool: "lsp_rename", args: A{"file": "main.go", "line": 13, "symbol": "Total", "new_name": "Sum"},
			want: []string{"Renamed Total to Sum in 2 file(s): main.go, total.go.", "+func Sum("}},
	})
}

// TestPyrightDiagnosticsOnWrite: the same with pyright.
func TestPyrightDiagnosticsOnWrite(t *testing.T) {
	bin := nodeBin(t, "pyright-langserver")
	dir := copyProject(t, "python")
	m := serverManager(t, lsp.Spec{Name: "pyright", Commands: []string{bin}, Args: []string{"--stdio"}})
	ed := OnWrite(fs.EditFile(fs.Options{}), m, NewSeen())
	editPy := func(old, new string) tool.Result {
		return call(t, ed, dir, A{"path": "broken.py", "edits": []A{{"old": old, "new": new}}})
	}
	r := editPy("count: int", "other: str = 1\ncount: int")
	// pyright's message has a second line: one diagnostic is one line starting with
	// the file's name.
	var got []string
	for _, l := range reported(r) {
		if strings.HasPrefix(l, "broken.py:") || strings.HasPrefix(l, "unexpected") {
			got = append(got, l)
		}
	}
	if len(got) != 1 || !strings.Contains(got[0], `broken.py:3: error: Type "Literal[1]" is not assignable to declared type "str"`) {
		t.Fatalf("want exactly the new error, got %q in:\n%s", got, r.Text)
	}
	r = editPy(`"""One type error."""`, `"""Two type errors."""`)
	if got := reported(r); got != nil {
		t.Fatalf("an unrelated edit reported %q", got)
	}
}

// TestPyrightIdenticalErrorsAndRename: with pyright, two new errors of one message are
// two, and neither a line inserted above old errors nor a rename in their file makes
// them new.
func TestPyrightIdenticalErrorsAndRename(t *testing.T) {
	bin := nodeBin(t, "pyright-langserver")
	dir := copyProject(t, "python")
	m := serverManager(t, lsp.Spec{Name: "pyright", Commands: []string{bin}, Args: []string{"--stdio"}})
	seen := NewSeen()
	ed, rn := OnWrite(fs.EditFile(fs.Options{}), m, seen), OnWrite(Rename(m), m, seen)
	errorsOf := func(r tool.Result) []string {
		t.Helper()
		var got []string
		for _, l := range reported(r) {
			if strings.HasPrefix(l, "broken.py:") || strings.HasPrefix(l, "unexpected") {
				got = append(got, l)
			}
		}
		return got
	}
	editPy := func(old, new string) []string {
		t.Helper()
		return errorsOf(call(t, ed, dir, A{"path": "broken.py", "edits": []A{{"old": old, "new": new}}}))
	}
	const msg = `error: Type "Literal['three']" is not assignable to declared type "int"`
	got := editPy(`count: int = "three"`, "count: int = \"three\"\n\n\ndef tally() -> None:\n    a: int = \"three\"\n    b: int = \"three\"\n    print(a, b)")
	if want := []string{"broken.py:7: " + msg, "broken.py:8: " + msg}; strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Fatalf("two new identical errors: got %q, want %q", got, want)
	}
	if got := editPy(`"""One type error."""`, "\"\"\"Three type errors.\"\"\"\n\nimport os\n\nprint(os.sep)"); got != nil {
		t.Fatalf("errors moved by inserted lines were reported: %q", got)
	}
	r := call(t, rn, dir, A{"file": "broken.py", "line": 10, "symbol": "tally", "new_name": "count_all"})
	wantText(t, r, "Renamed tally to count_all")
	if got := errorsOf(r); got != nil {
		t.Fatalf("a rename reported old errors: %q in:\n%s", got, r.Text)
	}
}
