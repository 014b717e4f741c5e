package fs

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/gantry-dev/gantry/internal/tool"
)

func edits(pairs ...string) []A {
	var out []A
	for i := 0; i+1 < len(pairs); i += 2 {
		out = append(out, A{"old": pairs[i], "new": pairs[i+1]})
	}
	return out
}

const goSrc = `package main

import "fmt"

func main() {
	fmt.Println("hello")
	fmt.Println("world")
}

func helper() int {
	return 42
}
`

func TestEditFile_SingleEdit(t *testing.T) {
	d := t.TempDir()
	p := writeTestFile(t, d, "main.go", goSrc)
	r := call(t, EditFile(testOpts), d, A{"path": "main.go", "edits": edits(`"hello"`, `"hi"`)})
	wantOK(t, r)
	if got := readTestFile(t, p); got != strings.Replace(goSrc, `"hello"`, `"hi"`, 1) {
		t.Fatalf("content:\n%s", got)
	}
	noTempFiles(t, d)
}

func TestEditFile_OutputHeadlineAndNumberedDiff(t *testing.T) {
	d := t.TempDir()
	writeTestFile(t, d, "main.go", goSrc)
	r := call(t, EditFile(testOpts), d, A{"path": "main.go", "edits": edits(
		"\tfmt.Println(\"world\")\n", "\tfmt.Println(\"big\")\n\tfmt.Println(\"world\")\n",
		"return 42", "return 43",
	)})
	wantOK(t, r)
	want := "Applied 2 edits to main.go: +2 -1 lines, first change at line 7.\n\n" +
		"--- a/main.go\n+++ b/main.go\n" +
		"@@ -4,9 +4,10 @@\n" +
		"  4| \n" +
		"  5| func main() {\n" +
		"  6| \tfmt.Println(\"hello\")\n" +
		"+ 7| \tfmt.Println(\"big\")\n" +
		"  8| \tfmt.Println(\"world\")\n" +
		"  9| }\n" +
		" 10| \n" +
		" 11| func helper() int {\n" +
		"-11| \treturn 42\n" +
		"+12| \treturn 43\n" +
		" 13| }"
	if r.Text != want {
		t.Fatalf("got:\n%s\nwant:\n%s", r.Text, want)
	}
	if !strings.Contains(r.Display.Diff, "\n-\treturn 42\n+\treturn 43\n") {
		t.Fatalf("display diff:\n%s", r.Display.Diff)
	}
}

func TestEditFile_NotFound(t *testing.T) {
	d := t.TempDir()
	p := writeTestFile(t, d, "main.go", goSrc)
	backdate(t, p)
	before := snap(t, p)
	r := call(t, EditFile(testOpts), d, A{"path": "main.go", "edits": edits("func helpr() int {\n\treturn 24\n}", "x")})
	wantError(t, r, "edits[0].old was not found in main.go.", "The most similar lines are 10–12:", "10| func helper() int {", "11| \treturn 42", "12| }")
	assertUntouched(t, p, before)
}

func TestEditFile_NotFoundWhitespaceOnly(t *testing.T) {
	d := t.TempDir()
	writeTestFile(t, d, "main.go", goSrc)
	r := call(t, EditFile(testOpts), d, A{"path": "main.go", "edits": edits("func helper() int {\n    return 42\n}", "x")})
	wantError(t, r, "Lines 10–12 differ from it only in whitespace; copy them exactly:")
}

func TestEditFile_NotFoundNothingSimilar(t *testing.T) {
	d := t.TempDir()
	writeTestFile(t, d, "main.go", goSrc)
	r := call(t, EditFile(testOpts), d, A{"path": "main.go", "edits": edits("zzzzqqqq", "x")})
	wantError(t, r, "Nothing in the file resembles it")
}

func TestEditFile_Ambiguous(t *testing.T) {
	d := t.TempDir()
	p := writeTestFile(t, d, "main.go", goSrc)
	backdate(t, p)
	before := snap(t, p)
	r := call(t, EditFile(testOpts), d, A{"path": "main.go", "edits": edits("fmt.Println", "log.Println")})
	wantError(t, r, "edits[0].old occurs 2 times in main.go (lines 6, 7)")
	assertUntouched(t, p, before)
	// Overlapping occurrences count too.
	writeTestFile(t, d, "a.txt", "aaa\n")
	r = call(t, EditFile(testOpts), d, A{"path": "a.txt", "edits": edits("aa", "b")})
	wantError(t, r, "occurs 2 times")
}

func TestEditFile_Overlap(t *testing.T) {
	d := t.TempDir()
	p := writeTestFile(t, d, "a.txt", "one two three four\n")
	backdate(t, p)
	before := snap(t, p)
	r := call(t, EditFile(testOpts), d, A{"path": "a.txt", "edits": edits("one two", "1 2", "two three", "2 3")})
	wantError(t, r, "edits[0] and edits[1] overlap (at line 1)")
	assertUntouched(t, p, before)
}

func TestEditFile_Nest(t *testing.T) {
	d := t.TempDir()
	p := writeTestFile(t, d, "a.txt", "one two three four\n")
	before := snap(t, p)
	r := call(t, EditFile(testOpts), d, A{"path": "a.txt", "edits": edits("three", "3", "two three four", "x")})
	wantError(t, r, "edits[0] lies inside the text of edits[1]")
	assertUntouched(t, p, before)
}

func TestEditFile_Repeat(t *testing.T) {
	d := t.TempDir()
	p := writeTestFile(t, d, "a.txt", "one two three\n")
	before := snap(t, p)
	r := call(t, EditFile(testOpts), d, A{"path": "a.txt", "edits": edits("two", "2", "one", "1", "two", "deux")})
	wantError(t, r, "edits[0] and edits[2] replace the same text")
	assertUntouched(t, p, before)
}

func TestEditFile_AdjacentEditsAllowed(t *testing.T) {
	d := t.TempDir()
	p := writeTestFile(t, d, "a.txt", "onetwo\n")
	wantOK(t, call(t, EditFile(testOpts), d, A{"path": "a.txt", "edits": edits("two", "2", "one", "1")}))
	if got := readTestFile(t, p); got != "12\n" {
		t.Fatalf("got %q", got)
	}
}

func TestEditFile_NoCascade(t *testing.T) {
	d := t.TempDir()
	p := writeTestFile(t, d, "a.txt", "alpha\nbeta\n")
	// Applied one after the other, the second edit would find "beta" twice; resolved
	// against the original it finds it once.
	r := call(t, EditFile(testOpts), d, A{"path": "a.txt", "edits": edits("alpha", "beta", "beta", "gamma")})
	wantOK(t, r)
	if got := readTestFile(t, p); got != "beta\ngamma\n" {
		t.Fatalf("got %q", got)
	}
	// And an edit cannot match text another edit produces.
	r = call(t, EditFile(testOpts), d, A{"path": "a.txt", "edits": edits("gamma", "delta", "delta", "epsilon")})
	wantError(t, r, "edits[1].old was not found")
	if got := readTestFile(t, p); got != "beta\ngamma\n" {
		t.Fatalf("got %q", got)
	}
}

func TestEditFile_AnyRefusedNothingWritten(t *testing.T) {
	d := t.TempDir()
	p := writeTestFile(t, d, "main.go", goSrc)
	backdate(t, p)
	before := snap(t, p)
	r := call(t, EditFile(testOpts), d, A{"path": "main.go", "edits": edits(
		"package main", "package app", // fine
		"return 42", "return 0", // fine
		"fmt.Println", "x", // ambiguous
		"no such text", "y", // missing
	)})
	wantError(t, r, "No edit was applied and the file is unchanged", "edits[2].old occurs 2 times", "edits[3].old was not found")
	assertUntouched(t, p, before)
	noTempFiles(t, d)
}

func TestEditFile_EmptyNewDeletes(t *testing.T) {
	d := t.TempDir()
	p := writeTestFile(t, d, "a.txt", "keep\ndrop\nkeep\n")
	r := call(t, EditFile(testOpts), d, A{"path": "a.txt", "edits": edits("drop\n", "")})
	wantOK(t, r)
	if got := readTestFile(t, p); got != "keep\nkeep\n" {
		t.Fatalf("got %q", got)
	}
	if !strings.HasPrefix(r.Text, "Applied 1 edit to a.txt: +0 -1 lines, first change at line 2.") {
		t.Fatalf("headline %q", r.Text)
	}
}

func TestEditFile_DryRun(t *testing.T) {
	d := t.TempDir()
	p := writeTestFile(t, d, "a.txt", "x = 1\n")
	backdate(t, p)
	before := snap(t, p)
	r := call(t, EditFile(testOpts), d, A{"path": "a.txt", "edits": edits("1", "2"), "dry_run": true})
	wantOK(t, r)
	if !strings.HasPrefix(r.Text, "Dry run: 1 edit would apply to a.txt: +1 -1 lines, first change at line 1. Nothing was written.") ||
		!strings.Contains(r.Text, "-1| x = 1\n+1| x = 2") {
		t.Fatalf("got:\n%s", r.Text)
	}
	if !strings.Contains(r.Display.Diff, "-x = 1\n+x = 2\n") {
		t.Fatalf("display diff %q", r.Display.Diff)
	}
	assertUntouched(t, p, before)
}

func TestEditFile_CRLFPreserved(t *testing.T) {
	d := t.TempDir()
	p := writeTestFile(t, d, "win.txt", "one\r\ntwo\r\nthree\r\n")
	// The model writes \n; the file keeps \r\n, in the new text too.
	r := call(t, EditFile(testOpts), d, A{"path": "win.txt", "edits": edits("one\ntwo\n", "one\n1.5\ntwo\n")})
	wantOK(t, r)
	if got := readTestFile(t, p); got != "one\r\n1.5\r\ntwo\r\nthree\r\n" {
		t.Fatalf("got %q", got)
	}
}

func TestEditFile_BOMPreserved(t *testing.T) {
	d := t.TempDir()
	p := writeTestFile(t, d, "bom.txt", "\uFEFFfirst\nsecond\n")
	r := call(t, EditFile(testOpts), d, A{"path": "bom.txt", "edits": edits("first", "1st")})
	wantOK(t, r)
	if got := readTestFile(t, p); got != "\uFEFF1st\nsecond\n" {
		t.Fatalf("got %q", got)
	}
}

func TestEditFile_KeepsMode(t *testing.T) {
	d := t.TempDir()
	p := writeTestFile(t, d, "run.sh", "echo a\n")
	os.Chmod(p, 0o755)
	wantOK(t, call(t, EditFile(testOpts), d, A{"path": "run.sh", "edits": edits("a", "b")}))
	if fi, _ := os.Stat(p); fi.Mode().Perm() != 0o755 {
		t.Fatalf("mode %v", fi.Mode().Perm())
	}
}

func TestEditFile_MissingFile(t *testing.T) {
	d := t.TempDir()
	r := call(t, EditFile(testOpts), d, A{"path": "new.go", "edits": edits("a", "b")})
	wantError(t, r)
	if r.Text != "new.go does not exist. Create it with write_file" {
		t.Fatalf("got %q", r.Text)
	}
}

func TestEditFile_BadEdits(t *testing.T) {
	d := t.TempDir()
	p := writeTestFile(t, d, "a.txt", "text\n")
	before := snap(t, p)
	ef := EditFile(testOpts)
	wantError(t, call(t, ef, d, A{"path": "a.txt", "edits": edits("", "x")}), "edits[0].old is empty")
	wantError(t, call(t, ef, d, A{"path": "a.txt", "edits": edits("text", "ok", "same", "same")}), "edits[1] has the same old and new text")
	wantError(t, call(t, ef, d, A{"path": "a.txt", "edits": []A{}}), "at least one {old, new} pair")
	assertUntouched(t, p, before)
}

func TestEditFile_MalformedArgs(t *testing.T) {
	d := t.TempDir()
	writeTestFile(t, d, "a.txt", "text\n")
	ef := EditFile(testOpts)
	for raw, want := range map[string]string{
		`{"path": "a.txt"}`:                                                        `"edits", which is missing`,
		`{"path": "a.txt", "edits": "old=new"}`:                                    `"edits" must be an array`,
		`{"path": "a.txt", "edits": [{"new": "x"}]}`:                               `"edits[0].old", which is missing`,
		`{"path": "a.txt", "edits": [{"old": 1, "new": 2}]}`:                       `"edits[0].new" must be a string`,
		`{"path": "a.txt", "edits": [null]}`:                                       `"edits[0]" must not be null`,
		`{"edits": [{"old": "a", "new": "b"}]}`:                                    `"path", which is missing`,
		`{"path": "a.txt", "edits": [{"old": "t", "new": "x"}], "dry_run": "yes"}`: `"dry_run" must be true or false`,
	} {
		wantError(t, callRaw(t, ef, d, raw), want)
	}
	if readTestFile(t, filepath.Join(d, "a.txt")) != "text\n" {
		t.Fatal("a malformed call changed the file")
	}
}

func TestEditFile_BinaryFile(t *testing.T) {
	d := t.TempDir()
	p := filepath.Join(d, "blob")
	os.WriteFile(p, []byte("abc\x00def"), 0o644)
	before := snap(t, p)
	r := call(t, EditFile(testOpts), d, A{"path": "blob", "edits": edits("abc", "x")})
	wantError(t, r, "blob is a binary file (7 bytes", "edit_file changes only text files")
	assertUntouched(t, p, before)
}

func TestEditFile_HugeSparseFile(t *testing.T) {
	d := t.TempDir()
	p := writeTestFile(t, d, "huge.txt", "header\n")
	os.Truncate(p, 1<<30)
	r := call(t, EditFile(testOpts), d, A{"path": "huge.txt", "edits": edits("header", "x")})
	wantError(t, r, "huge.txt is too large to edit (1.0 GB")
}

func TestEditFile_NonRegularAndDirectory(t *testing.T) {
	d := t.TempDir()
	os.Mkdir(filepath.Join(d, "dir"), 0o755)
	wantError(t, call(t, EditFile(testOpts), d, A{"path": "dir", "edits": edits("a", "b")}), "dir is a directory")
	if err := syscall.Mkfifo(filepath.Join(d, "pipe"), 0o644); err != nil {
		t.Skip("no FIFOs here:", err)
	}
	done := make(chan tool.Result, 1)
	go func() { done <- call(t, EditFile(testOpts), d, A{"path": "pipe", "edits": edits("a", "b")}) }()
	select {
	case r := <-done:
		wantError(t, r, "pipe is a named pipe")
	case <-time.After(5 * time.Second):
		t.Fatal("edit_file hung on a FIFO")
	}
}

func TestEditFile_Cancelled(t *testing.T) {
	d := t.TempDir()
	p := writeTestFile(t, d, "a.txt", "x\n")
	inv, _ := EditFile(testOpts).Decode(tool.Env{Cwd: d}, []byte(`{"path":"a.txt","edits":[{"old":"x","new":"y"}]}`))
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	wantError(t, inv.Run(ctx), "cancelled", "nothing was written")
	if readTestFile(t, p) != "x\n" {
		t.Fatal("written after cancellation")
	}
}

func TestEditFile_KindAndDiff(t *testing.T) {
	d := t.TempDir()
	ef := EditFile(testOpts)
	if ef.Level() != tool.LevelWrite || ef.Kind() != tool.KindEdit {
		t.Fatalf("%v %v", ef.Level(), ef.Kind())
	}
	inv, msg := ef.Decode(tool.Env{Cwd: d}, []byte(`{"path":"../b.txt","edits":[{"old":"a","new":"b"}]}`))
	if msg != "" || inv.Principal != "../b.txt" || inv.Paths[0] != filepath.Join(filepath.Dir(d), "b.txt") {
		t.Fatalf("%q %q %v", msg, inv.Principal, inv.Paths)
	}
}
