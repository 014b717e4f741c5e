package app

import (
	"context"
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/gantry-dev/gantry/internal/config"
	"github.com/gantry-dev/gantry/internal/resource"
)

// faceDirs are the faces: what they show of a call must come from the tool's
// definition (tool.Call, tool.Info), never from knowing the tool by its name.
var faceDirs = []string{"../ui", "../../cmd/gantry"}

// TestNoFaceSwitchesOnAToolName fails when a face compares something with the name of
// one of gantry's tools: a case of a switch, an == or != against the name, or a map
// keyed by it. Adding a tool must not need a line in a face.
func TestNoFaceSwitchesOnAToolName(t *testing.T) {
	dir := project(t, "", map[string]string{})
	cfg, err := config.Load(dir)
	if err != nil {
		t.Fatal(err)
	}
	a := open(t, Options{Cwd: dir})
	names := map[string]bool{}
	for _, tl := range a.reg.All() {
		names[tl.Name()] = true
	}
	pool := resource.NewPool(nil)
	defer func() {
		if err := pool.Close(context.Background()); err != nil {
			t.Error(err)
		}
	}()
	standalone, _, _, _ := buildTools(deps{cfg: cfg, getenv: func(string) string { return "set" }, pool: pool})
	for _, tl := range standalone.All() {
		names[tl.Name()] = true
	}
	if !names["bash"] || !names["exit_plan_mode"] || !names["web_search"] {
		t.Fatalf("the registry lacks tools: %v", names)
	}

	var files int
	for _, root := range faceDirs {
		err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
			if err != nil {
				return err
			}
			if d.IsDir() {
				if d.Name() == "testdata" || d.Name() == "node_modules" {
					return filepath.SkipDir
				}
				return nil
			}
			if !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
				return nil
			}
			files++
			for _, f := range toolNameUses(t, path, names) {
				t.Errorf("%s: a face knows the tool %s by its name; take what it shows from the tool's definition (tool.Call) instead", f.pos, f.name)
			}
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
	}
	if files < 20 {
		t.Fatalf("only %d face files were read: the walk is wrong", files)
	}
}

type nameUse struct{ pos, name string }

// toolNameUses lists where the Go file at path compares with, switches on or keys a
// map by a string literal that is one of names.
func toolNameUses(t *testing.T, path string, names map[string]bool) []nameUse {
	t.Helper()
	src, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, path, src, 0)
	if err != nil {
		t.Fatal(err)
	}
	var out []nameUse
	check := func(e ast.Expr) {
		lit, ok := e.(*ast.BasicLit)
		if !ok || lit.Kind != token.STRING {
			return
		}
		s, err := strconv.Unquote(lit.Value)
		if err == nil && names[s] {
			out = append(out, nameUse{fset.Position(lit.Pos()).String(), s})
		}
	}
	ast.Inspect(f, func(n ast.Node) bool {
		switch n := n.(type) {
		case *ast.CaseClause:
			for _, e := range n.List {
				check(e)
			}
		case *ast.BinaryExpr:
			if n.Op == token.EQL || n.Op == token.NEQ {
				check(n.X)
				check(n.Y)
			}
		case *ast.CompositeLit:
			if _, isMap := n.Type.(*ast.MapType); isMap {
				for _, el := range n.Elts {
					if kv, ok := el.(*ast.KeyValueExpr); ok {
						check(kv.Key)
					}
				}
			}
		}
		return true
	})
	return out
}

// The check itself: a face file that switches on a tool's name is found.
func TestToolNameUsesFindsASwitch(t *testing.T) {
	path := filepath.Join(t.TempDir(), "face.go")
	src := "package x\nfunc f(name string) int {\n\tswitch name {\n\tcase \"bash\":\n\t\treturn 1\n\t}\n\tif name == \"edit_file\" {\n\t\treturn 2\n\t}\n\tm := map[string]int{\"grep\": 3, \"other\": 4}\n\treturn m[name]\n}\n"
	if err := os.WriteFile(path, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	got := toolNameUses(t, path, map[string]bool{"bash": true, "edit_file": true, "grep": true})
	if len(got) != 3 {
		t.Fatalf("found %v, want bash, edit_file and grep", got)
	}
}
