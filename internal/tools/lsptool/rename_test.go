package lsptool

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gantry-dev/gantry/internal/lsp"
)

func TestRenameAcrossTwoFiles(t *testing.T) {
	needGopls(t)
	dir := shapesProject(t)
	m := newManager(t, lsp.Options{})
	tl := Rename(m)
	r := call(t, tl, dir, A{"file": "shapes.go", "line": 14, "symbol": "Total", "new_name": "Sum"})
	wantText(t, r, "Renamed Total to Sum in 2 file(s): shapes.go, use.go.", "-func Total(", "+func Sum(", "+\treturn Sum([]Shape{sq})")
	if len(r.Display.Changes) != 2 || !strings.Contains(r.Display.Diff, "use.go") {
		t.Fatalf("display: %+v", r.Display)
	}
	for _, f := range []string{"shapes.go", "use.go"} {
		b, _ := os.ReadFile(filepath.Join(dir, f))
		if strings.Contains(string(b), "Total(") || !strings.Contains(string(b), "Sum(") {
			t.Fatalf("%s after the rename:\n%s", f, b)
		}
	}
	// The server knows the new text: a definition of the new name finds it.
	wantText(t, call(t, Tool(m, Options{}), dir, A{"action": "definition", "file": "use.go", "line": 5, "symbol": "Sum"}),
		"shapes.go:14: func Sum(shapes []Shape) float64 {")
	wantError(t, call(t, tl, dir, A{"file": "shapes.go", "line": 14, "symbol": "Nope", "new_name": "X"}), `"Nope" is not on line 14`)
	wantError(t, call(t, tl, dir, A{"file": "shapes.go", "line": 14, "symbol": "Sum"}), "new_name")
}
