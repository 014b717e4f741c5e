package lsptool

import (
	"strings"
	"testing"

	"github.com/gantry-dev/gantry/internal/lsp"
)

func TestNavigationWithGopls(t *testing.T) {
	needGopls(t)
	dir := shapesProject(t)
	writeTree(t, dir, map[string]string{"imp.go": "package shapes\n\nfunc Up(s string) string { return strings.ToUpper(s) }\n"})
	tl := Tool(newManager(t, lsp.Options{}), Options{})
	t.Run("definition", func(t *testing.T) {
		wantText(t, call(t, tl, dir, A{"action": "definition", "file": "use.go", "line": 5, "symbol": "Total"}),
			"shapes.go:14: func Total(shapes []Shape) float64 {")
	})
	t.Run("type_definition", func(t *testing.T) {
		wantText(t, call(t, tl, dir, A{"action": "type_definition", "file": "use.go", "line": 5, "symbol": "sq"}),
			"shapes.go:9: type Square struct{ Side float64 }")
	})
	t.Run("implementation", func(t *testing.T) {
		wantText(t, call(t, tl, dir, A{"action": "implementation", "file": "shapes.go", "line": 4, "symbol": "Shape"}),
			"shapes.go:9: type Square struct{ Side float64 }")
	})
	t.Run("references", func(t *testing.T) {
		r := call(t, tl, dir, A{"action": "references", "file": "shapes.go", "line": 11, "symbol": "Area"})
		wantText(t, r, "shapes.go:11: func (s Square) Area() float64", "use.go:5: return Total([]Shape{sq}) + sq.Area()")
	})
	t.Run("hover", func(t *testing.T) {
		wantText(t, call(t, tl, dir, A{"action": "hover", "file": "use.go", "line": 5, "symbol": "Total"}),
			"func Total(shapes []Shape) float64", "Total is the sum of the areas.")
	})
	t.Run("symbols query", func(t *testing.T) {
		wantText(t, call(t, tl, dir, A{"action": "symbols", "query": "Square"}), "shapes.go:9: struct Square")
	})
	t.Run("symbols file", func(t *testing.T) {
		wantText(t, call(t, tl, dir, A{"action": "symbols", "file": "shapes.go"}),
			"shapes.go:4: interface Shape", "shapes.go:9: struct Square", "shapes.go:14: func Total")
	})
	t.Run("diagnostics file", func(t *testing.T) {
		wantText(t, call(t, tl, dir, A{"action": "diagnostics", "file": "imp.go"}), "imp.go:3: error: undefined: strings")
		wantText(t, call(t, tl, dir, A{"action": "diagnostics", "file": "use.go"}), "use.go has no diagnostics.")
	})
	t.Run("code_actions", func(t *testing.T) {
		wantText(t, call(t, tl, dir, A{"action": "code_actions", "file": "imp.go", "line": 3, "symbol": "strings"}),
			`Add import:`, `"strings" [quickfix]`)
	})
	t.Run("diagnostics project", func(t *testing.T) {
		r := call(t, tl, dir, A{"action": "diagnostics", "file": "*"})
		if !strings.Contains(r.Text, "$ go vet ./...") || !strings.Contains(r.Text, "undefined: strings") {
			t.Fatalf("go vet output:\n%s", r.Text)
		}
	})
	t.Run("status", func(t *testing.T) {
		wantText(t, call(t, tl, dir, A{"action": "status"}), "Go: gopls runs for "+dir)
	})
	t.Run("bad inputs", func(t *testing.T) {
		wantError(t, call(t, tl, dir, A{"action": "definition", "file": "use.go", "line": 5}), `needs the "symbol"`)
		wantError(t, call(t, tl, dir, A{"action": "definition", "file": "use.go", "line": 5, "symbol": "Nope"}),
			`"Nope" is not on line 5 of use.go, which reads: return Total([]Shape{sq}) + sq.Area()`)
		wantError(t, call(t, tl, dir, A{"action": "hover", "file": "use.go", "line": 99, "symbol": "x"}), "use.go has 6 lines; line 99 is past its end.")
		wantError(t, call(t, tl, dir, A{"action": "hover", "file": "../x.go", "line": 1, "symbol": "x"}), "outside the workspace")
		wantError(t, call(t, tl, dir, A{"action": "jump"}), "action")
		wantError(t, call(t, tl, dir, A{"action": "hover", "line": "two"}), "line")
		wantError(t, call(t, tl, dir, A{"action": "hover", "file": "nope.go", "line": 1, "symbol": "x"}), "nope.go does not exist.")
	})
	t.Run("reload", func(t *testing.T) {
		wantText(t, call(t, tl, dir, A{"action": "reload"}), "Stopped gopls for "+dir)
		wantText(t, call(t, tl, dir, A{"action": "definition", "file": "use.go", "line": 5, "symbol": "Total"}), "shapes.go:14:")
	})
}
