package lsptool

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gantry-dev/gantry/internal/lsp"
	"github.com/gantry-dev/gantry/internal/lsp/lsptest"
	"github.com/gantry-dev/gantry/internal/resource"
	"github.com/gantry-dev/gantry/internal/tool"
)

// needGopls skips a test when gopls is not installed.
func needGopls(t testing.TB) { lsptest.NeedGopls(t) }

// writeTree writes files (path → content) under dir.
func writeTree(t *testing.T, dir string, files map[string]string) {
	t.Helper()
	for p, c := range files {
		full := filepath.Join(dir, p)
		if err := os.MkdirAll(filepath.Dir(full), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(full, []byte(c), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

func newManager(t testing.TB, o lsp.Options) *lsp.Manager {
	pool := resource.NewPool(nil)
	t.Cleanup(func() {
		if err := pool.Close(context.Background()); err != nil {
			t.Error(err)
		}
	})
	return lsp.NewManager(pool, o)
}

type A map[string]any

// call runs t with args in cwd.
func call(t *testing.T, tl tool.Tool, cwd string, a A) tool.Result {
	t.Helper()
	raw, _ := json.Marshal(a)
	inv, msg := tl.Decode(tool.Env{Cwd: cwd}, raw)
	if msg != "" {
		return tool.Fail(msg)
	}
	return inv.Run(context.Background())
}

func wantText(t *testing.T, r tool.Result, parts ...string) {
	t.Helper()
	if r.IsError {
		t.Fatalf("unexpected error: %s", r.Text)
	}
	for _, p := range parts {
		if !strings.Contains(r.Text, p) {
			t.Fatalf("result lacks %q:\n%s", p, r.Text)
		}
	}
}

func wantError(t *testing.T, r tool.Result, parts ...string) {
	t.Helper()
	if !r.IsError {
		t.Fatalf("want an error, got: %s", r.Text)
	}
	for _, p := range parts {
		if !strings.Contains(r.Text, p) {
			t.Fatalf("error lacks %q:\n%s", p, r.Text)
		}
	}
}

const goMod = "module example.com/shapes\n\ngo 1.22\n"

const shapesGo = `package shapes

// Shape is a plane figure.
type Shape interface {
	Area() float64
}

// Square is a square.
type Square struct{ Side float64 }

func (s Square) Area() float64 { return s.Side * s.Side }

// Total is the sum of the areas.
func Total(shapes []Shape) float64 {
	t := 0.0
	for _, s := range shapes {
		t += s.Area()
	}
	return t
}
`

const useGo = `package shapes

func Unit() float64 {
	sq := Square{Side: 1}
	return Total([]Shape{sq}) + sq.Area()
}
`

func shapesProject(t *testing.T) string {
	dir := t.TempDir()
	writeTree(t, dir, map[string]string{"go.mod": goMod, "shapes.go": shapesGo, "use.go": useGo})
	return dir
}
