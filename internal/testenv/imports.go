package testenv

import (
	"go/parser"
	"go/token"
	"os"
	"strconv"
	"strings"
	"testing"
)

// OnlyImports fails t for every import of the non-test Go files of the current folder
// that allowed does not list, saying why with because (for a package that must be
// initialised early, the few standard packages Go initialises first).
func OnlyImports(t testing.TB, allowed map[string]bool, because string) {
	t.Helper()
	entries, err := os.ReadDir(".")
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, e := range entries {
		name := e.Name()
		if !strings.HasSuffix(name, ".go") || strings.HasSuffix(name, "_test.go") {
			continue
		}
		f, err := parser.ParseFile(token.NewFileSet(), name, nil, parser.ImportsOnly)
		if err != nil {
			t.Fatal(err)
		}
		n++
		for _, im := range f.Imports {
			p, _ := strconv.Unquote(im.Path.Value)
			if !allowed[p] {
				t.Errorf("%s imports %s: %s", name, p, because)
			}
		}
	}
	if n == 0 {
		t.Fatal("no source file read")
	}
}
