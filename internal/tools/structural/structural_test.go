package structural

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gantry-dev/gantry/internal/syntax"
	"github.com/gantry-dev/gantry/internal/tool"
)

func needParser(t *testing.T) {
	t.Helper()
	if !syntax.Available {
		t.Skip("a build without cgo cannot parse")
	}
}

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

func call(t *testing.T, tl tool.Tool, cwd string, a map[string]any) tool.Result {
	t.Helper()
	raw, _ := json.Marshal(a)
	inv, msg := tl.Decode(tool.Env{Cwd: cwd}, raw)
	if msg != "" {
		return tool.Fail(msg)
	}
	return inv.Run(context.Background())
}

func want(t *testing.T, r tool.Result, isErr bool, parts ...string) {
	t.Helper()
	if r.IsError != isErr {
		t.Fatalf("IsError %v, want %v:\n%s", r.IsError, isErr, r.Text)
	}
	for _, p := range parts {
		if !strings.Contains(r.Text, p) {
			t.Fatalf("lacks %q:\n%s", p, r.Text)
		}
	}
}

var project = map[string]string{
	"main.go":      "package main\n\nimport \"fmt\"\n\nfunc main() {\n\tfmt.Println(\"hi\", 1)\n\ts := \"fmt.Println(2)\" // fmt.Println(3)\n\tfmt.Println(s)\n}\n",
	"lib/util.py":  "def f(x):\n    print(x)\n    return x == x\n",
	"broken.go":    "package main\n\nfunc broken( {\n}\n\nfunc ok() { fmt.Println(\"after the error\") }\n",
	"notes.txt":    "fmt.Println(1)\n",
	".ignore":      "ignored/\n",
	"ignored/x.go": "package x\nfunc f() { fmt.Println(0) }\n",
}

func TestAstGrep(t *testing.T) {
	needParser(t)
	dir := writeTree(t, project)
	g := Grep(Options{})
	r := call(t, g, dir, map[string]any{"pattern": "fmt.Println($$$A)", "language": "go"})
	want(t, r, false, `main.go:6:2: fmt.Println("hi", 1)`, `$$$A = "hi", 1`, "main.go:8:2: fmt.Println(s)",
		`broken.go:6:13: func ok() { fmt.Println("after the error") }`, "1 file(s) have syntax errors")
	if strings.Contains(r.Text, "ignored/") || strings.Contains(r.Text, "(2)") || strings.Contains(r.Text, "(3)") || strings.Contains(r.Text, "notes") {
		t.Fatalf("matched in an ignored file, a string or a comment:\n%s", r.Text)
	}
	if r.Display.Note != "3 match(es) in 2 file(s)" {
		t.Errorf("note %q", r.Display.Note)
	}
	// Without a language, every language the pattern parses in.
	r = call(t, g, dir, map[string]any{"pattern": "$A == $A"})
	want(t, r, false, "lib/util.py:3:12: return x == x", "$A = x")
	// max_results.
	r = call(t, g, dir, map[string]any{"pattern": "fmt.Println($$$A)", "language": "go", "max_results": 1})
	want(t, r, false, "3 matches in 2 file(s); the first 1 are shown")
	// One file, its language from its extension.
	r = call(t, g, dir, map[string]any{"pattern": "print($X)", "path": "lib/util.py"})
	want(t, r, false, "lib/util.py:2:5: print(x)", "$X = x")
	r = call(t, g, dir, map[string]any{"pattern": "print($X)", "path": "lib/util.py", "max_results": 0})
	want(t, r, false)
	r = call(t, g, dir, map[string]any{"pattern": "nothing_like_this($A)", "language": "go"})
	want(t, r, false, "No match of the pattern in .")
}

func TestAstGrepBadInput(t *testing.T) {
	needParser(t)
	dir := writeTree(t, project)
	if err := os.WriteFile(filepath.Join(dir, "blob.go"), []byte("package x\x00\x01\x02"), 0o644); err != nil {
		t.Fatal(err)
	}
	g := Grep(Options{})
	for _, c := range []struct {
		args  map[string]any
		parts []string
	}{
		{map[string]any{"pattern": "func (", "language": "go"}, []string{"does not parse as go"}},
		{map[string]any{"pattern": "$$$A", "language": "go"}, []string{"matches no single node"}},
		{map[string]any{"pattern": "x", "language": "cobol"}, []string{`knows no language "cobol"`, "go, html"}},
		{map[string]any{"pattern": "x", "path": "missing.go"}, []string{"missing.go does not exist"}},
		{map[string]any{"pattern": "x", "path": "notes.txt"}, []string{"no grammar for .txt files"}},
		{map[string]any{"pattern": "x", "path": "blob.go"}, []string{"blob.go is a binary file"}},
		{map[string]any{"pattern": ""}, []string{"needs a non-empty pattern"}},
		{map[string]any{"pattern": 3}, []string{"pattern"}},
		{map[string]any{"pattern": "x", "max_results": -1}, []string{"max_results"}},
	} {
		want(t, call(t, g, dir, c.args), true, c.parts...)
	}
	// Walked, a binary file is counted, not an error.
	r := call(t, g, dir, map[string]any{"pattern": "fmt.Println($$$A)", "language": "go"})
	want(t, r, false, "1 binary file(s) skipped")
}

// A 5 MB file is searched whole.
func TestAstGrepLargeFile(t *testing.T) {
	needParser(t)
	var b strings.Builder
	b.WriteString("package p\n")
	for i := 0; b.Len() < 5<<20; i++ {
		b.WriteString("func f() { x := []int{1, 2, 3}; _ = x }\n")
	}
	b.WriteString("func g() { fmt.Println(\"last\") }\n")
	dir := writeTree(t, map[string]string{"big.go": b.String()})
	r := call(t, Grep(Options{}), dir, map[string]any{"pattern": "fmt.Println($A)", "path": "big.go"})
	want(t, r, false, `$A = "last"`)
}

type recorder struct {
	kinds    []string
	payloads []json.RawMessage
	fail     bool
}

func (r *recorder) AppendEvent(kind string, payload any) error {
	if r.fail {
		return os.ErrPermission
	}
	b, _ := json.Marshal(payload)
	r.kinds, r.payloads = append(r.kinds, kind), append(r.payloads, b)
	return nil
}

func read(t *testing.T, dir, p string) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(dir, p))
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func TestAstEditStagesAndResolveWrites(t *testing.T) {
	needParser(t)
	dir := writeTree(t, map[string]string{
		"a.go": "package p\n\nfunc a() {\n\tfmt.Println(1)\n\tfmt.Println(fmt.Println(2))\n}\n",
		"b.go": "package p\n\nfunc b() { fmt.Println(\"b\") }\n",
		"c.go": "package p\n\nfunc c() {}\n",
	})
	rec := &recorder{}
	staged := NewStaged(rec)
	set := NewSet(Options{}, staged, nil)
	tools := map[string]tool.Tool{}
	for _, tl := range set.Tools() {
		tools[tl.Name()] = tl
	}
	r := call(t, tools["ast_edit"], dir, map[string]any{"pattern": "fmt.Println($$$A)", "rewrite": "log.Print($$$A)", "language": "go"})
	want(t, r, false, "(proposed) 3 replacement(s) in 2 file(s)", `edit_id "edit_1"`, "- a.go: 2 replacement(s)", "- b.go: 1 replacement(s)",
		"-\tfmt.Println(1)", "+\tlog.Print(1)", "+\tlog.Print(fmt.Println(2))")
	if read(t, dir, "a.go") != "package p\n\nfunc a() {\n\tfmt.Println(1)\n\tfmt.Println(fmt.Println(2))\n}\n" {
		t.Fatal("ast_edit wrote a file")
	}
	if len(r.Display.Changes) != 2 || r.Display.Diff == "" {
		t.Fatalf("display: %+v", r.Display)
	}
	// The gate sees every file of the change as written.
	raw, _ := json.Marshal(map[string]any{"edit_id": "edit_1", "action": "accept"})
	inv, msg := tools["resolve"].Decode(tool.Env{Cwd: dir}, raw)
	if msg != "" || len(inv.Paths) != 2 || inv.Paths[0] != filepath.Join(dir, "a.go") {
		t.Fatalf("resolve's paths: %v %s", inv.Paths, msg)
	}
	r = inv.Run(context.Background())
	want(t, r, false, "Wrote edit_1: 3 replacement(s) in 2 file(s).")
	if got := read(t, dir, "a.go"); got != "package p\n\nfunc a() {\n\tlog.Print(1)\n\tlog.Print(fmt.Println(2))\n}\n" {
		t.Fatalf("a.go:\n%s", got)
	}
	if got := read(t, dir, "b.go"); got != "package p\n\nfunc b() { log.Print(\"b\") }\n" {
		t.Fatalf("b.go:\n%s", got)
	}
	want(t, call(t, tools["resolve"], dir, map[string]any{"edit_id": "edit_1", "action": "accept"}), true, `No staged change is called "edit_1"; none is staged`)
	if strings.Join(rec.kinds, ",") != StagedEventKind+","+ResolvedEventKind {
		t.Fatalf("events %v", rec.kinds)
	}
}

// A file changed after the change was staged: the whole change is refused, naming it,
// and nothing is written; a resumed session (its staged changes restored from the
// store's events) resolves what is still staged.
func TestResolveRefusesAChangedFileAndResumes(t *testing.T) {
	needParser(t)
	dir := writeTree(t, map[string]string{
		"a.py": "print(1)\n",
		"b.py": "print(2)\n",
	})
	rec := &recorder{}
	staged := NewStaged(rec)
	edit, resolve := EditTool(Options{}, staged), Resolve(Options{}, staged)
	want(t, call(t, edit, dir, map[string]any{"pattern": "print($A)", "rewrite": "log($A)"}), false, `"edit_1"`)
	want(t, call(t, edit, dir, map[string]any{"pattern": "print($A)", "rewrite": "echo($A)"}), false, `"edit_2"`)
	if err := os.WriteFile(filepath.Join(dir, "b.py"), []byte("print(22)\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	want(t, call(t, resolve, dir, map[string]any{"edit_id": "edit_1", "action": "accept"}), true, "b.py changed since the change was staged", "none of its 2 file(s) was written")
	if read(t, dir, "a.py") != "print(1)\n" {
		t.Fatal("a.py was written by a refused change")
	}
	want(t, call(t, resolve, dir, map[string]any{"edit_id": "edit_1", "action": "discard"}), false, "Discarded edit_1")
	want(t, call(t, resolve, dir, map[string]any{"edit_id": "edit_9", "action": "accept"}), true, "staged now: edit_2")
	want(t, call(t, resolve, dir, map[string]any{"edit_id": "edit_2", "action": "maybe"}), true, "action")

	// The session ends; a new one restores from the events.
	if err := os.WriteFile(filepath.Join(dir, "b.py"), []byte("print(2)\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	resumed := NewStaged(rec)
	resumed.Restore(rec.kinds, rec.payloads)
	want(t, call(t, Resolve(Options{}, resumed), dir, map[string]any{"edit_id": "edit_1", "action": "accept"}), true, `staged now: edit_2`)
	want(t, call(t, Resolve(Options{}, resumed), dir, map[string]any{"edit_id": "edit_2", "action": "accept"}), false, "Wrote edit_2")
	if read(t, dir, "a.py") != "echo(1)\n" || read(t, dir, "b.py") != "echo(2)\n" {
		t.Fatal("the resumed change was not written")
	}
	want(t, call(t, EditTool(Options{}, resumed), dir, map[string]any{"pattern": "echo($A)", "rewrite": "print($A)"}), false, `"edit_3"`)
}

// A store that cannot record the staged change says so, and nothing is staged.
func TestAstEditStoreFailure(t *testing.T) {
	needParser(t)
	dir := writeTree(t, map[string]string{"a.py": "print(1)\n"})
	staged := NewStaged(&recorder{fail: true})
	want(t, call(t, EditTool(Options{}, staged), dir, map[string]any{"pattern": "print($A)", "rewrite": "log($A)"}), true, "session store could not record it")
	if len(staged.pending()) != 0 {
		t.Fatal("staged without a record")
	}
	want(t, call(t, EditTool(Options{}, staged), dir, map[string]any{"pattern": "print($A)", "rewrite": "print($A)"}), false, "changes nothing")
}
