package nsinit

import (
	"go/parser"
	"go/token"
	"os"
	"strconv"
	"strings"
	"testing"
)

// early are the packages nsinit may import: the standard library's first ones, which
// Go initialises before gantry's other packages. One more (encoding/json, os/exec,
// path/filepath, golang.org/x/...) would make every helper wait for much of gantry's
// package initialisation again.
var early = map[string]bool{
	"errors": true, "fmt": true, "os": true, "os/signal": true, "runtime": true,
	"strconv": true, "strings": true, "sync/atomic": true, "syscall": true, "time": true,
	"unsafe": true,
}

func TestImportsOnlyEarlyPackages(t *testing.T) {
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
			if !early[p] {
				t.Errorf("%s imports %s, which Go may initialise after much of gantry: the helper would wait for it", name, p)
			}
		}
	}
	if n == 0 {
		t.Fatal("no source file read")
	}
}
