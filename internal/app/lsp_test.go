package app

import (
	"context"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/gantry-dev/gantry/internal/config"
	"github.com/gantry-dev/gantry/internal/lsp"
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

// TestLSPServerRowsFromConfig: every key of a config row reaches the server table,
// and the config's list of clean probes is internal/lsp's.
func TestLSPServerRowsFromConfig(t *testing.T) {
	if !slices.Equal(config.LSPCleanProbes, lsp.CleanProbes) {
		t.Fatalf("config allows clean probes %v, internal/lsp has %v", config.LSPCleanProbes, lsp.CleanProbes)
	}
	cfg := &config.Config{LSP: config.LSP{DiagnosticsWait: 5, Servers: map[string]config.LSPServer{
		"vtsls": {Command: "vtsls", Args: []string{"--stdio"}, Markers: []string{"package.json"}, Languages: []string{".mts"},
			InitializationOptions: map[string]any{"a": 1}, Checker: "tsc", LanguageID: "typescript",
			ReadyOnDiagnostics: true, CleanProbe: "tsserver"},
		"gopls": {Checker: "staticcheck ./..."},
	}}}
	o := lspOptions(cfg)
	if o.DiagnosticsWait != 5*time.Second {
		t.Errorf("wait %v", o.DiagnosticsWait)
	}
	var vt, gp lsp.Spec
	for _, s := range o.Servers {
		switch s.Name {
		case "vtsls":
			vt = s
		case "gopls":
			gp = s
		}
	}
	want := lsp.Spec{Name: "vtsls", Commands: []string{"vtsls"}, Args: []string{"--stdio"}, Markers: []string{"package.json"},
		Extensions: []string{".mts"}, InitOptions: []byte(`{"a":1}`), Checker: "tsc", LanguageID: "typescript",
		ReadyOnDiagnostics: true, CleanProbe: "tsserver"}
	if !reflect.DeepEqual(vt, want) {
		t.Errorf("the vtsls row:\n got %+v\nwant %+v", vt, want)
	}
	if gp.Checker != "staticcheck ./..." || !slices.Equal(gp.Commands, []string{"gopls"}) || !slices.Equal(gp.Markers, []string{"go.mod"}) {
		t.Errorf("the gopls row keeps what the config leaves: %+v", gp)
	}
}
