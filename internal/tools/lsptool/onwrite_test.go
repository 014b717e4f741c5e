package lsptool

import (
	"strings"
	"testing"

	"github.com/gantry-dev/gantry/internal/lsp"
	"github.com/gantry-dev/gantry/internal/tool"
	"github.com/gantry-dev/gantry/internal/tools/fs"
)

// calcGo has one type error already (line 4) before the session writes to it.
const calcGo = `package shapes

func Calc() int {
	var s string = 1
	n := 2
	return n
}

func Other() int {
	return 3
}
`

func edit(t *testing.T, tl tool.Tool, dir, old, new string) tool.Result {
	t.Helper()
	return call(t, tl, dir, A{"path": "calc.go", "edits": []A{{"old": old, "new": new}}})
}

func reported(r tool.Result) []string {
	if r.IsError || strings.Contains(r.Text, "gave no diagnostics") {
		return []string{"unexpected: " + r.Text}
	}
	_, after, ok := strings.Cut(r.Text, "New diagnostics from the language server:\n")
	if !ok {
		return nil
	}
	return strings.Split(strings.TrimSpace(after), "\n")
}

func TestDiagnosticsOnWrite(t *testing.T) {
	needGopls(t)
	dir := shapesProject(t)
	writeTree(t, dir, map[string]string{"calc.go": calcGo})
	m := newManager(t, lsp.Options{})
	ed := OnWrite(fs.EditFile(fs.Options{}), m, NewSeen())
	if ed.Name() != "edit_file" || ed.Info().Files != tool.FilesWrite {
		t.Fatal("the wrapper changed what the tool says of itself")
	}

	// A new type error in a file that already has one: only the new one is reported.
	r := edit(t, ed, dir, "\treturn n\n", "\treturn n + \"x\"\n")
	got := reported(r)
	if len(got) != 1 || !strings.Contains(got[0], `calc.go:6: error: invalid operation: n + "x" (mismatched types int and untyped string)`) {
		t.Fatalf("want exactly the new error, got %q in:\n%s", got, r.Text)
	}
	// An edit elsewhere reports nothing old.
	r = edit(t, ed, dir, "\treturn 3\n", "\treturn 4\n")
	if got := reported(r); got != nil {
		t.Fatalf("an unrelated edit reported %q", got)
	}
	// A fix reports nothing.
	r = edit(t, ed, dir, "\treturn n + \"x\"\n", "\treturn n\n")
	if got := reported(r); got != nil {
		t.Fatalf("a fix reported %q", got)
	}
	// Moving the old error four lines down reports nothing.
	r = edit(t, ed, dir, "func Calc() int {\n", "func Calc() int {\n\t_ = 1\n\t_ = 2\n\t_ = 3\n\t_ = 4\n")
	if got := reported(r); got != nil {
		t.Fatalf("a moved error was reported again: %q", got)
	}
	wantText(t, call(t, Tool(m, Options{}), dir, A{"action": "diagnostics", "file": "calc.go"}), "calc.go:8: error: cannot use 1")
}

func TestWriteWithoutServerCostsNothing(t *testing.T) {
	dir := t.TempDir()
	m := newManager(t, lsp.Options{})
	wr := OnWrite(fs.WriteFile(fs.Options{}), m, NewSeen())
	r := call(t, wr, dir, A{"path": "notes.go", "content": "package x\nvar x int = \"s\"\n"})
	if r.IsError || strings.Contains(r.Text, "diagnostics") {
		t.Fatalf("a write with no go.mod: %s", r.Text)
	}
	rd := fs.ReadFile(fs.Options{})
	if OnWrite(rd, m, NewSeen()) != rd {
		t.Fatal("a tool that writes no file was wrapped")
	}
}

func TestStatusAndWritesWithAMissingServer(t *testing.T) {
	dir := t.TempDir()
	writeTree(t, dir, map[string]string{"go.mod": goMod, "a.go": "package shapes\n"})
	m := newManager(t, lsp.Options{Servers: lsp.Merge(lsp.Defaults(), []lsp.Spec{{Name: "gopls", Commands: []string{"gantry-no-such-gopls"}}})})
	wantText(t, call(t, Tool(m, Options{}), dir, A{"action": "status"}),
		"Go: gopls not started: "+dir+" has a marker but gantry-no-such-gopls is not installed",
		"Python: pyright not started: no pyproject.toml, setup.py, requirements.txt here")
	wantError(t, call(t, Tool(m, Options{}), dir, A{"action": "diagnostics", "file": "a.go"}),
		"No language server can serve a.go: gopls would serve "+dir+" but gantry-no-such-gopls is not installed.")
	r := call(t, OnWrite(fs.WriteFile(fs.Options{}), m, NewSeen()), dir, A{"path": "a.go", "content": "package shapes\nvar x int = \"s\"\n"})
	if r.IsError || strings.Contains(r.Text, "diagnostics") {
		t.Fatalf("a write with no usable server: %s", r.Text)
	}
}

// TestWriteSaysWhenTheBoundIsHit: a server that publishes nothing for a file (gopls
// serving .txt files, which it does not diagnose) makes a write wait its bound and
// say so, naming the server and what to do.
func TestWriteSaysWhenTheBoundIsHit(t *testing.T) {
	needGopls(t)
	dir := shapesProject(t)
	gopls := lsp.NewManager(nil, lsp.Options{}).Binaries()["gopls"]
	m := newManager(t, lsp.Options{DiagnosticsWait: 1e9, Servers: []lsp.Spec{{Name: "quiet", Commands: []string{gopls},
		Markers: []string{"go.mod"}, Extensions: []string{".txt"}, LanguageID: "plaintext"}}})
	r := call(t, OnWrite(fs.WriteFile(fs.Options{}), m, NewSeen()), dir, A{"path": "notes.txt", "content": "hello\n"})
	if r.IsError || !strings.Contains(r.Text, "(quiet gave no diagnostics for notes.txt within 1s; they may still come: call lsp diagnostics.)") {
		t.Fatalf("want the bound said, got:\n%s", r.Text)
	}
}
