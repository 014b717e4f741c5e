package app

import (
	"context"
	"slices"
	"strings"
	"testing"

	"github.com/gantry-dev/gantry/internal/config"
	"github.com/gantry-dev/gantry/internal/resource"
	"github.com/gantry-dev/gantry/internal/tool"

	"github.com/gantry-dev/gantry/internal/testenv"
)

// lspRegistry builds the tools of dir with a pool, as a session does.
func lspRegistry(t *testing.T, dir string) *tool.Registry {
	t.Helper()
	cfg, err := config.Load(dir)
	if err != nil {
		t.Fatal(err)
	}
	pool := resource.NewPool(nil)
	reg, _, _, _ := buildTools(deps{cfg: cfg, getenv: func(string) string { return "" }, pool: pool, cwd: dir})
	t.Cleanup(func() {
		if err := pool.Close(context.Background()); err != nil {
			t.Error(err)
		}
	})
	return reg
}

// TestLSPToolsDeclaredWhereAServerCanRun: lsp and lsp_rename are declared in a Go
// module (with gopls installed), known but not declared in a folder no server serves,
// and a configured server whose binary is missing declares nothing.
func TestLSPToolsDeclaredWhereAServerCanRun(t *testing.T) {
	plain := project(t, "", map[string]string{"notes.txt": "x\n"})
	names := lspRegistry(t, plain).Names(tool.LevelExec)
	if slices.Contains(names, "lsp") || slices.Contains(names, "lsp_rename") {
		t.Fatalf("lsp declared where no server can run: %v", names)
	}
	if !lspRegistry(t, plain).Known("lsp") {
		t.Fatal("lsp is not known, so rules cannot name it")
	}
	missing := project(t, "lsp:\n  servers:\n    gopls:\n      command: gantry-no-such-gopls\n", map[string]string{"go.mod": "module m\n"})
	if names := lspRegistry(t, missing).Names(tool.LevelExec); slices.Contains(names, "lsp") {
		t.Fatalf("lsp declared though gopls is missing: %v", names)
	}
	if _, err := lookGopls(); err != nil {
		testenv.Missing(t, "gopls is not installed (go install golang.org/x/tools/gopls@v0.23.0); the rest needs it")
	}
	mod := project(t, "", map[string]string{"go.mod": "module m\n\ngo 1.22\n", "a.go": "package m\n\nfunc A() int { return 1 }\n"})
	reg := lspRegistry(t, mod)
	names = reg.Names(tool.LevelExec)
	if !slices.Contains(names, "lsp") || !slices.Contains(names, "lsp_rename") {
		t.Fatalf("lsp not declared in a Go module: %v", names)
	}
	if ro := reg.Names(tool.LevelRead); slices.Contains(ro, "lsp_rename") || !slices.Contains(ro, "lsp") {
		t.Fatalf("read-only tools: %v", ro)
	}
	// edit_file reports the error its write introduces.
	ed, _ := reg.Lookup("edit_file")
	inv, msg := ed.Decode(tool.Env{Cwd: mod}, []byte(`{"path":"a.go","edits":[{"old":"return 1","new":"return \"one\""}]}`))
	if msg != "" {
		t.Fatal(msg)
	}
	r := inv.Run(context.Background())
	if r.IsError || !strings.Contains(r.Text, "New diagnostics from the language server:\na.go:3: error: cannot use \"one\"") {
		t.Fatalf("edit_file in a Go module:\n%s", r.Text)
	}
}
