package exepages

import (
	"go/parser"
	"go/token"
	"os"
	"strconv"
	"strings"
	"testing"
)

// early are the packages exepages may import: the standard library's first ones, and
// nsinit (itself made of them), which Go initialises before gantry's other packages.
// One more (encoding/json, os/exec, golang.org/x/sys/unix, …) would let package
// initialisation read much of the executable before the registration, fault-around
// and all.
var early = map[string]bool{
	"errors": true, "fmt": true, "os": true, "strconv": true, "strings": true,
	"syscall": true, "unsafe": true,
	"github.com/gantry-dev/gantry/internal/contain/nsinit": true,
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
				t.Errorf("%s imports %s, which Go may initialise after much of gantry: the registration would come after their reads", name, p)
			}
		}
	}
	if n == 0 {
		t.Fatal("no source file read")
	}
}
