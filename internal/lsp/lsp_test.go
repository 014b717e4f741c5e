package lsp

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gantry-dev/gantry/internal/procgroup"
	"github.com/gantry-dev/gantry/internal/resource"
	"go.lsp.dev/protocol"
	"go.lsp.dev/uri"
)

// needGopls skips a test when gopls is not installed.
func needGopls(t *testing.T) {
	t.Helper()
	if _, err := lookPath("gopls"); err != nil {
		t.Skip("gopls is not installed (go install golang.org/x/tools/gopls@v0.23.0); skipping the real-server test")
	}
}

// writeTree writes files (path → content) under a new temporary folder.
func writeTree(t *testing.T, files map[string]string) string {
	t.Helper()
	dir := t.TempDir()
	for p, c := range files {
		full := filepath.Join(dir, p)
		if err := os.MkdirAll(filepath.Dir(full), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(full, []byte(c), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

func newManager(t *testing.T, o Options) (*Manager, *resource.Pool) {
	pool := resource.NewPool(nil)
	t.Cleanup(func() { _ = pool.Close(context.Background()) })
	return NewManager(pool, o), pool
}

const mainGo = `package main

import "fmt"

type Greeter interface{ Greet() string }

type English struct{}

func (English) Greet() string { return "hello" }

func main() {
	var g Greeter = English{}
	fmt.Println(g.Greet())
}
`

func TestGoplsDefinitionAndDiagnostics(t *testing.T) {
	needGopls(t)
	dir := writeTree(t, map[string]string{"go.mod": "module example.com/m\n\ngo 1.22\n", "main.go": mainGo,
		"bad.go": "package main\n\nfunc bad() int { return \"x\" }\n"})
	m, _ := newManager(t, Options{})
	tg, ok, why := m.For(filepath.Join(dir, "main.go"))
	if !ok {
		t.Fatal(why)
	}
	ctx := context.Background()
	c, note, err := m.Client(ctx, tg)
	if err != nil || note != "" {
		t.Fatal(err, note)
	}
	path := filepath.Join(dir, "main.go")
	if _, _, err := c.Sync(ctx, path); err != nil {
		t.Fatal(err)
	}
	pos, p := Locate(mainGo, 12, "Greeter", "main.go")
	if p != "" {
		t.Fatal(p)
	}
	res, err := c.Server().Definition(ctx, &protocol.DefinitionParams{TextDocumentPositionParams: protocol.TextDocumentPositionParams{
		TextDocument: protocol.TextDocumentIdentifier{URI: uri.File(path)}, Position: pos}})
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("%T %+v", res, res)
	bad := filepath.Join(dir, "bad.go")
	v, gen, err := c.Sync(ctx, bad)
	if err != nil {
		t.Fatal(err)
	}
	ds, ok := c.WaitDiagnostics(ctx, bad, v, gen, m.DiagnosticsWait())
	if !ok || len(ds) != 1 {
		t.Fatalf("diagnostics %v %+v", ok, ds)
	}
	t.Logf("%+v", ds[0])
	pid := c.Pid()
	if err := m.pool.Close(ctx); err != nil {
		t.Fatal(err)
	}
	if procgroup.Alive(pid) {
		t.Fatal("gopls outlived the pool")
	}
	_ = strings.TrimSpace
}
