package contain

import (
	"bytes"
	"encoding/json"
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/gantry-dev/gantry/internal/testenv"
)

// The ways Go starts a process, or changes what every process of gantry's inherits
// (the environment, the working folder: a session's, set process-wide, would reach
// another session's commands), by the import path of their package.
var starters = map[string][]string{
	"os/exec":               {"Command", "CommandContext"},
	"os":                    {"StartProcess", "Setenv", "Unsetenv", "Clearenv", "Chdir"},
	"syscall":               {"ForkExec", "StartProcess", "Exec"},
	"golang.org/x/sys/unix": {"Exec"},
}

// One door: no package of the gantry binary but this one (and the helper's, nsinit)
// starts a process itself —
// every child goes through a Policy (Policy.Process), so none can escape the
// session's deny rules, sandbox and environment. The packages are those linked into
// cmd/gantry, on every platform's files (macOS's too); test files and test-only
// packages (servers and displays the tests start) are not part of the binary.
func TestOneDoor(t *testing.T) {
	testenv.Need(t, "go")
	root := moduleRoot(t)
	cmd := exec.Command("go", "list", "-deps", "-json=ImportPath,Dir,Module", "./cmd/gantry")
	cmd.Dir = root
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("go list: %v", err)
	}
	self, err := filepath.Abs(".")
	if err != nil {
		t.Fatal(err)
	}
	dec := json.NewDecoder(bytes.NewReader(out))
	checked := 0
	for dec.More() {
		var p struct {
			ImportPath, Dir string
			Module          *struct{ Path string }
		}
		if err := dec.Decode(&p); err != nil {
			t.Fatal(err)
		}
		// contain and its own packages (nsinit, the helper that starts the command
		// inside the namespace) are the door.
		if p.Module == nil || p.Module.Path != "github.com/gantry-dev/gantry" || p.Dir == self || strings.HasPrefix(p.Dir, self+string(filepath.Separator)) {
			continue
		}
		checked++
		for _, v := range startsProcesses(t, p.Dir) {
			t.Errorf("%s starts a process outside the door, or sets what every process inherits: %s (use a contain.Policy and its Env)", p.ImportPath, v)
		}
	}
	if checked < 20 {
		t.Fatalf("only %d of gantry's packages were checked", checked)
	}
}

// startsProcesses lists the calls (and exec.Cmd values) of dir's non-test Go files
// that start a process, as file:line: what.
func startsProcesses(t *testing.T, dir string) []string {
	files, err := filepath.Glob(filepath.Join(dir, "*.go"))
	if err != nil {
		t.Fatal(err)
	}
	var found []string
	fset := token.NewFileSet()
	for _, name := range files {
		if strings.HasSuffix(name, "_test.go") {
			continue
		}
		f, err := parser.ParseFile(fset, name, nil, parser.SkipObjectResolution)
		if err != nil {
			t.Fatal(err)
		}
		local := map[string]string{} // the file's name of each import
		for _, im := range f.Imports {
			path, _ := strconv.Unquote(im.Path.Value)
			n := filepath.Base(path)
			if im.Name != nil {
				n = im.Name.Name
			}
			local[n] = path
		}
		ast.Inspect(f, func(n ast.Node) bool {
			var sel *ast.SelectorExpr
			switch n := n.(type) {
			case *ast.CallExpr:
				sel, _ = n.Fun.(*ast.SelectorExpr)
			case *ast.CompositeLit: // exec.Cmd{…}, started by its Start
				sel, _ = n.Type.(*ast.SelectorExpr)
			}
			if sel == nil {
				return true
			}
			x, ok := sel.X.(*ast.Ident)
			if !ok {
				return true
			}
			path := local[x.Name]
			bad := path == "os/exec" && sel.Sel.Name == "Cmd"
			for _, fn := range starters[path] {
				bad = bad || sel.Sel.Name == fn
			}
			if bad {
				pos := fset.Position(sel.Pos())
				found = append(found, filepath.Base(pos.Filename)+":"+strconv.Itoa(pos.Line)+": "+x.Name+"."+sel.Sel.Name)
			}
			return true
		})
	}
	return found
}

// The check finds what it looks for: a file that starts a process is named.
func TestOneDoorFindsAStarter(t *testing.T) {
	dir := t.TempDir()
	src := "package x\n\nimport run \"os/exec\"\n\nfunc f() { _ = run.Command(\"ls\") }\n\nvar c = &run.Cmd{Path: \"/bin/ls\"}\n\nfunc g(*run.Cmd) {}\n"
	if err := os.WriteFile(filepath.Join(dir, "x.go"), []byte(src), 0o600); err != nil {
		t.Fatal(err)
	}
	got := startsProcesses(t, dir)
	if len(got) != 2 || !strings.Contains(got[0], "run.Command") || !strings.Contains(got[1], "run.Cmd") {
		t.Fatalf("got %q", got)
	}
}

// moduleRoot is the folder of go.mod above the test's.
func moduleRoot(t *testing.T) string {
	dir, err := filepath.Abs(".")
	if err != nil {
		t.Fatal(err)
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			return dir
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			t.Fatal("no go.mod above the test")
		}
		dir = parent
	}
}
