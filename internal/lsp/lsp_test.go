package lsp

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/gantry-dev/gantry/internal/procgroup"
	"github.com/gantry-dev/gantry/internal/resource"
	"github.com/gantry-dev/gantry/internal/testenv"
	"go.lsp.dev/protocol"
	"go.lsp.dev/uri"
)

// needGopls skips a test when gopls is not installed.
func needGopls(t *testing.T) {
	t.Helper()
	if _, err := lookPath("gopls"); err != nil {
		testenv.Missing(t, "gopls is not installed (go install golang.org/x/tools/gopls@v0.23.0); skipping the real-server test")
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

func TestStatusSaysWhyNot(t *testing.T) {
	dir := writeTree(t, map[string]string{"go.mod": "module m\n", "a.go": "package m\n", "x.py": "print(1)\n"})
	servers := Merge(Defaults(), []Spec{{Name: "gopls", Commands: []string{"gantry-no-such-gopls"}}})
	m, _ := newManager(t, Options{Servers: servers})
	st := strings.Join(m.Status(dir), "\n")
	for _, want := range []string{
		"Go: gopls not started: " + dir + " has a marker but gantry-no-such-gopls is not installed",
		"Python: pyright not started: no pyproject.toml, setup.py, requirements.txt here",
	} {
		if !strings.Contains(st, want) {
			t.Fatalf("status lacks %q:\n%s", want, st)
		}
	}
	if _, ok, why := m.For(filepath.Join(dir, "a.go")); ok || !strings.Contains(why, "gantry-no-such-gopls is not installed") {
		t.Fatalf("For: %v %s", ok, why)
	}
	if _, ok, why := m.For(filepath.Join(dir, "x.py")); ok || !strings.Contains(why, "pyright needs one of pyproject.toml") {
		t.Fatalf("For: %v %s", ok, why)
	}
	if _, ok, why := m.For(filepath.Join(dir, "notes.txt")); ok || why != "No language server is configured for .txt files." {
		t.Fatalf("For: %v %s", ok, why)
	}
}

// The binary of a server is looked up once while it stays an executable file; one
// not found, or gone, is looked up again, so an install meanwhile is seen.
func TestBinaryResolvedOnce(t *testing.T) {
	// Without a pool the Manager has no change journal and checks the binary with a
	// stat; with one, the journal says when it changed.
	for _, journal := range []bool{false, true} {
		t.Run(fmt.Sprintf("journal=%v", journal), func(t *testing.T) { testBinaryResolvedOnce(t, journal) })
	}
}

func testBinaryResolvedOnce(t *testing.T, journal bool) {
	dir := writeTree(t, map[string]string{"go.mod": "module m\n", "a.go": "package m\n"})
	bin := filepath.Join(t.TempDir(), "fake-gopls")
	lookups := 0
	installed := false
	look := func(name string) (string, error) {
		lookups++
		if !installed {
			return "", exec.ErrNotFound
		}
		return bin, nil
	}
	var pool *resource.Pool
	if journal {
		pool = resource.NewPool(nil)
		t.Cleanup(func() { _ = pool.Close(context.Background()) })
	}
	m := NewManager(pool, Options{LookPath: look})
	file := filepath.Join(dir, "a.go")
	for range 2 {
		if _, ok, _ := m.For(file); ok {
			t.Fatal("served without a binary")
		}
	}
	if lookups != 2 {
		t.Fatalf("a missing binary was looked up %d times in two calls, want 2", lookups)
	}
	if err := os.WriteFile(bin, []byte("#!/bin/sh\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	installed = true
	for range 3 {
		if tg, ok, why := m.For(file); !ok || tg.Binary != bin {
			t.Fatalf("For after the install: %v %v %s", tg.Binary, ok, why)
		}
	}
	if lookups != 3 {
		t.Fatalf("lookups after three calls with the binary installed: %d, want 3", lookups)
	}
	if err := os.Remove(bin); err != nil {
		t.Fatal(err)
	}
	installed = false
	if _, ok, why := m.For(file); ok || !strings.Contains(why, "gopls is not installed") {
		t.Fatalf("For after the binary went: %v %s", ok, why)
	}
}

// A server's root follows its markers as they are made and removed, cached or not.
func TestRootsFollowMarkers(t *testing.T) {
	for _, journal := range []bool{false, true} {
		t.Run(fmt.Sprintf("journal=%v", journal), func(t *testing.T) {
			dir := writeTree(t, map[string]string{"sub/deep/a.go": "package deep\n"})
			bin := filepath.Join(t.TempDir(), "fake-gopls")
			if err := os.WriteFile(bin, []byte("#!/bin/sh\n"), 0o755); err != nil {
				t.Fatal(err)
			}
			var pool *resource.Pool
			if journal {
				pool = resource.NewPool(nil)
				t.Cleanup(func() { _ = pool.Close(context.Background()) })
			}
			m := NewManager(pool, Options{LookPath: func(string) (string, error) { return bin, nil }})
			file := filepath.Join(dir, "sub/deep/a.go")
			root := func() string {
				t.Helper()
				tg, ok, why := m.For(file)
				if !ok {
					if !strings.Contains(why, "needs one of go.mod") {
						t.Fatalf("For: %s", why)
					}
					return ""
				}
				return tg.Root
			}
			for range 2 {
				if r := root(); r != "" {
					t.Fatalf("served without a marker, from %s", r)
				}
			}
			steps := []struct {
				do   func()
				want string
			}{
				{func() { writeFile(t, filepath.Join(dir, "go.mod"), "module m\n") }, dir},
				{func() { writeFile(t, filepath.Join(dir, "sub", "go.mod"), "module m/sub\n") }, filepath.Join(dir, "sub")},
				{func() { must(t, os.Remove(filepath.Join(dir, "sub", "go.mod"))) }, dir},
				{func() { must(t, os.Rename(filepath.Join(dir, "go.mod"), filepath.Join(dir, "sub", "deep", "go.mod"))) }, filepath.Join(dir, "sub", "deep")},
				{func() { must(t, os.Remove(filepath.Join(dir, "sub", "deep", "go.mod"))) }, ""},
			}
			for i, st := range steps {
				st.do()
				for range 2 {
					if r := root(); r != st.want {
						t.Fatalf("step %d: root %q, want %q", i+1, r, st.want)
					}
				}
				m.mu.Lock()
				cached := len(m.roots)
				m.mu.Unlock()
				if journal != (cached > 0) && runtime.GOOS == "linux" {
					t.Fatalf("step %d: %d roots cached with journal=%v", i+1, cached, journal)
				}
			}
		})
	}
}

func writeFile(t *testing.T, p, s string) {
	t.Helper()
	must(t, os.WriteFile(p, []byte(s), 0o644))
}

func must(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

func TestCrashedServerIsRestartedOnce(t *testing.T) {
	needGopls(t)
	dir := writeTree(t, map[string]string{"go.mod": "module m\n", "a.go": "package m\n"})
	m, _ := newManager(t, Options{})
	tg, ok, why := m.For(filepath.Join(dir, "a.go"))
	if !ok {
		t.Fatal(why)
	}
	ctx := context.Background()
	kill := func(c *Client) {
		procgroup.Kill(c.Pid(), 0)
		testenv.Recv(t, c.dead, testenv.Bound, "the killed server to be seen dead")
	}
	c, _, err := m.Client(ctx, tg)
	if err != nil {
		t.Fatal(err)
	}
	kill(c)
	c2, note, err := m.Client(ctx, tg)
	if err != nil || !strings.Contains(note, "gopls had crashed and was restarted") || c2 == c || !c2.Alive() {
		t.Fatalf("restart: %v %q", err, note)
	}
	if st := strings.Join(m.Status(dir), "\n"); !strings.Contains(st, "restarted once after") {
		t.Fatalf("status: %s", st)
	}
	kill(c2)
	if _, _, err := m.Client(ctx, tg); err == nil || !strings.Contains(err.Error(), "restarted once already") {
		t.Fatalf("second crash: %v", err)
	}
	if st := strings.Join(m.Status(dir), "\n"); !strings.Contains(st, "gopls crashed for "+dir) {
		t.Fatalf("status: %s", st)
	}
	// reload forgets the crash.
	if _, err := m.Reload(ctx, dir); err != nil {
		t.Fatal(err)
	}
	if _, note, err := m.Client(ctx, tg); err != nil || note != "" {
		t.Fatalf("after reload: %v %q", err, note)
	}
}

// TestHandlerAnswersTheServersRequests: one configuration entry per item, and the
// requests servers die without an answer to are answered.
func TestHandlerAnswersTheServersRequests(t *testing.T) {
	h := handler{c: &Client{ready: make(chan struct{}), changed: make(chan struct{}), diags: map[string]published{}}}
	ctx := context.Background()
	out, err := h.Configuration(ctx, &protocol.ConfigurationParams{Items: make([]protocol.ConfigurationItem, 3)})
	if err != nil || len(out) != 3 || string(out[2]) != "null" {
		t.Fatalf("configuration: %v %q", err, out)
	}
	if err := h.WorkDoneProgressCreate(ctx, &protocol.WorkDoneProgressCreateParams{}); err != nil {
		t.Fatal(err)
	}
	if err := h.RegisterCapability(ctx, &protocol.RegistrationParams{}); err != nil {
		t.Fatal(err)
	}
	if r, err := h.ApplyEdit(ctx, &protocol.ApplyWorkspaceEditParams{}); err != nil || r.Applied {
		t.Fatalf("applyEdit: %v %+v", err, r)
	}
	// The end of a progress makes the server ready.
	if err := h.Progress(ctx, &protocol.ProgressParams{Token: protocol.String("t"), Value: protocol.LSPAny(`{"kind":"end"}`)}); err != nil {
		t.Fatal(err)
	}
	select {
	case <-h.c.ready:
	default:
		t.Fatal("a progress end did not make the server ready")
	}
}

func TestSpecRowsOfTheNonGoServers(t *testing.T) {
	byName := map[string]Spec{}
	for _, s := range Defaults() {
		byName[s.Name] = s
	}
	for _, n := range []string{"pyright", "typescript", "clangd"} {
		if !byName[n].ReadyOnDiagnostics {
			t.Errorf("%s should wait for the opened file's diagnostics", n)
		}
	}
	if byName["gopls"].ReadyOnDiagnostics {
		t.Error("gopls reports its progress: it needs no wait for diagnostics")
	}
	c := byName["clangd"]
	for path, want := range map[string]string{"a.c": "c", "a.h": "c", "a.cpp": "cpp", "a.hpp": "cpp"} {
		if got := c.languageID(path); got != want {
			t.Errorf("clangd language id of %s: %q, want %q", path, got, want)
		}
	}
	dir := writeTree(t, map[string]string{"compile_flags.txt": "-std=c11\n", "src/a.c": "int x;\n"})
	if got := c.root(filepath.Join(dir, "src"), "/"); got != dir {
		t.Errorf("compile_flags.txt makes no clangd root: %q", got)
	}
	m := Merge(Defaults(), []Spec{{Name: "clangd", Commands: []string{"/x/clangd"}}})
	for _, s := range m {
		if s.Name == "clangd" && (!s.ReadyOnDiagnostics || s.Commands[0] != "/x/clangd") {
			t.Errorf("a config row that sets only the command changed the rest: %+v", s)
		}
	}
}

// A built-in server that is not installed is said with how to install it; a row of
// the configuration naming other binaries has no such line.
func TestStatusSaysHowToInstall(t *testing.T) {
	dir := writeTree(t, map[string]string{"Cargo.toml": "[package]\nname = \"x\"\n", "src/main.rs": "fn main() {}\n"})
	m, _ := newManager(t, Options{Servers: Defaults(), LookPath: func(string) (string, error) { return "", errors.New("not found") }})
	st := strings.Join(m.Status(dir), "\n")
	if !strings.Contains(st, "rust-analyzer is not installed (install it: rustup component add rust-analyzer)") {
		t.Errorf("status:\n%s", st)
	}
}
