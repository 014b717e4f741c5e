package structural

import (
	"fmt"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/gantry-dev/gantry/internal/tool"
)

// ast_grep over a tree with far more matches than the bound holds, some files denied,
// stays within maxOut characters by itself — its closing lines (what was cut, what was
// skipped) included — so the loop's bound never cuts it.
func TestASTGrepStaysWithinTheBound(t *testing.T) {
	needParser(t)
	files := map[string]string{}
	for i := range 300 {
		files[fmt.Sprintf("pkg/file_%03d_with_a_rather_long_name.go", i)] = "package p\n\nfunc f() {\n\tprintln(\"a rather long argument that makes each match line long\", 1)\n\tprintln(\"another\", 2)\n}\n"
	}
	for i := range 20 {
		files[fmt.Sprintf("secret/secret_%02d_with_a_rather_long_name.go", i)] = "package s\n\nfunc g() { println(\"k\", 1) }\n"
	}
	dir := writeTree(t, files)
	e := yoloGate(t, dir, `ast_grep:secret/.*`)
	const maxOut = 2000
	r := gated(t, e, Grep(Options{MaxOutput: maxOut}), dir, map[string]any{"pattern": "println($A, $B)", "language": "go", "max_results": 1000}, true)
	if r.IsError {
		t.Fatal(r.Text)
	}
	if n := utf8.RuneCountInString(r.Text); n > maxOut || tool.Bound(r.Text, maxOut) != r.Text {
		t.Errorf("%d characters, over %d:\n%s", n, maxOut, r.Text)
	}
	if !strings.Contains(r.Text, "600 matches in 300 file(s); the first ") || !strings.Contains(r.Text, "secret/secret_00") {
		t.Errorf("the closing lines are missing:\n%s", r.Text)
	}
}
