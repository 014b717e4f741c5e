package fs

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gantry-dev/gantry/internal/tool"
)

// wantChanges fails unless got lists exactly want.
func wantChanges(t testing.TB, got []tool.FileChange, want ...tool.FileChange) {
	t.Helper()
	if len(got) != len(want) {
		t.Fatalf("changes: got %d, want %d: %+v", len(got), len(want), got)
	}
	for i := range want {
		if got[i] != want[i] {
			t.Fatalf("changes[%d]:\ngot  %+v\nwant %+v", i, got[i], want[i])
		}
	}
}

func TestEditor_EditFileAppliesToBuffer(t *testing.T) {
	d := t.TempDir()
	p := writeTestFile(t, d, "main.go", goSrc)
	backdate(t, p)
	before := snap(t, p)
	unsaved := strings.Replace(goSrc, `"hello"`, `"hello there"`, 1)
	ed := newFakeEditor(map[string]string{p: unsaved})

	r := callEditor(t, EditFile(testOpts), d, ed, A{"path": "main.go", "edits": edits(`"hello there"`, `"hi"`)})
	wantOK(t, r)
	want := strings.Replace(goSrc, `"hello"`, `"hi"`, 1)
	if got, _ := ed.buffer(p); got != want {
		t.Fatalf("buffer:\n%s", got)
	}
	assertUntouched(t, p, before)
	if got := ed.callLog(); strings.Join(got, ",") != "read "+p+",write "+p {
		t.Fatalf("calls %v", got)
	}
	wantChanges(t, r.Display.Changes, tool.FileChange{Path: p, Old: unsaved, New: want})
	if !strings.Contains(r.Display.Diff, "-\tfmt.Println(\"hello there\")\n+\tfmt.Println(\"hi\")\n") {
		t.Fatalf("diff:\n%s", r.Display.Diff)
	}
}

func TestEditor_EditFileKeepsCRLFAndBOM(t *testing.T) {
	d := t.TempDir()
	p := writeTestFile(t, d, "w.txt", "disk\r\n")
	ed := newFakeEditor(map[string]string{p: utf8BOM + "one\r\ntwo\r\n"})
	r := callEditor(t, EditFile(testOpts), d, ed, A{"path": "w.txt", "edits": edits("one\ntwo", "1\n2\n3")})
	wantOK(t, r)
	if got, _ := ed.buffer(p); got != utf8BOM+"1\r\n2\r\n3\r\n" {
		t.Fatalf("buffer %q", got)
	}
}

func TestEditor_EditFileUnsavedNewBuffer(t *testing.T) {
	d := t.TempDir()
	p := filepath.Join(d, "pkg", "new.go")
	ed := newFakeEditor(map[string]string{p: "package x\n"})
	r := callEditor(t, EditFile(testOpts), d, ed, A{"path": "pkg/new.go", "edits": edits("x", "y")})
	wantOK(t, r)
	if got, _ := ed.buffer(p); got != "package y\n" {
		t.Fatalf("buffer %q", got)
	}
	if _, err := os.Stat(filepath.Dir(p)); err != nil {
		t.Fatalf("the folder was not made: %v", err)
	}
	wantError(t, callEditor(t, EditFile(testOpts), d, ed, A{"path": "nope.go", "edits": edits("x", "y")}), missingFile("nope.go"))
}

func TestEditor_EditFileDryRunWritesNothing(t *testing.T) {
	d := t.TempDir()
	p := writeTestFile(t, d, "a.txt", "disk\n")
	ed := newFakeEditor(map[string]string{p: "buffer\n"})
	r := callEditor(t, EditFile(testOpts), d, ed, A{"path": "a.txt", "edits": edits("buffer", "changed"), "dry_run": true})
	wantOK(t, r)
	if got, _ := ed.buffer(p); got != "buffer\n" || len(ed.callLog()) != 1 {
		t.Fatalf("buffer %q, calls %v", got, ed.callLog())
	}
	wantChanges(t, r.Display.Changes, tool.FileChange{Path: p, Old: "buffer\n", New: "changed\n"})
}

func TestEditor_WriteFileCreatesThroughEditor(t *testing.T) {
	d := t.TempDir()
	p := filepath.Join(d, "sub", "dir", "new.txt")
	ed := newFakeEditor(nil)
	r := callEditor(t, WriteFile(testOpts), d, ed, A{"path": "sub/dir/new.txt", "content": "hello\n"})
	wantOK(t, r)
	if !strings.HasPrefix(r.Text, "Created sub/dir/new.txt (1 line") {
		t.Fatalf("text %q", r.Text)
	}
	if got, ok := ed.buffer(p); !ok || got != "hello\n" {
		t.Fatalf("buffer %q", got)
	}
	if _, err := os.Stat(filepath.Dir(p)); err != nil {
		t.Fatalf("the folder was not made: %v", err)
	}
	if _, err := os.Stat(p); err == nil {
		t.Fatal("written on disk, not through the editor")
	}
	wantChanges(t, r.Display.Changes, tool.FileChange{Path: p, Created: true, Old: "", New: "hello\n"})
}

func TestEditor_WriteFileDiffsAgainstBuffer(t *testing.T) {
	d := t.TempDir()
	p := writeTestFile(t, d, "a.txt", "disk\n")
	ed := newFakeEditor(map[string]string{p: "buffer\n"})
	r := callEditor(t, WriteFile(testOpts), d, ed, A{"path": "a.txt", "content": "buffer\n"})
	wantOK(t, r)
	if !strings.Contains(r.Text, "already has exactly this content") {
		t.Fatalf("text %q", r.Text)
	}
	r = callEditor(t, WriteFile(testOpts), d, ed, A{"path": "a.txt", "content": "new\n"})
	wantOK(t, r)
	if !strings.Contains(r.Display.Diff, "-buffer\n+new\n") {
		t.Fatalf("diff:\n%s", r.Display.Diff)
	}
	wantChanges(t, r.Display.Changes, tool.FileChange{Path: p, Old: "buffer\n", New: "new\n"})
	if got := readTestFile(t, p); got != "disk\n" {
		t.Fatalf("disk %q", got)
	}
}

func TestEditor_ReadsEditorWritesDisk(t *testing.T) {
	d := t.TempDir()
	p := writeTestFile(t, d, "a.txt", "disk one\n")
	if err := os.Chmod(p, 0o600); err != nil {
		t.Fatal(err)
	}
	ed := newFakeEditor(map[string]string{p: "buffer one\n"})
	ed.noWrite = true

	r := callEditor(t, EditFile(testOpts), d, ed, A{"path": "a.txt", "edits": edits("buffer", "edited")})
	wantOK(t, r)
	if got := readTestFile(t, p); got != "edited one\n" {
		t.Fatalf("disk %q", got)
	}
	if fi, _ := os.Stat(p); fi.Mode().Perm() != 0o600 {
		t.Fatalf("mode %v", fi.Mode())
	}
	r = callEditor(t, WriteFile(testOpts), d, ed, A{"path": "b.txt", "content": "b\n"})
	wantOK(t, r)
	if got := readTestFile(t, filepath.Join(d, "b.txt")); got != "b\n" {
		t.Fatalf("disk %q", got)
	}
	for _, c := range ed.callLog() {
		if strings.HasPrefix(c, "write ") {
			t.Fatalf("wrote through an editor that does not write: %v", ed.callLog())
		}
	}
	noTempFiles(t, d)
}

func TestEditor_WritesEditorReadsDisk(t *testing.T) {
	d := t.TempDir()
	p := writeTestFile(t, d, "a.txt", "disk\n")
	ed := newFakeEditor(map[string]string{p: "buffer\n"})
	ed.noRead = true
	r := callEditor(t, EditFile(testOpts), d, ed, A{"path": "a.txt", "edits": edits("disk", "edited")})
	wantOK(t, r)
	if got, _ := ed.buffer(p); got != "edited\n" || readTestFile(t, p) != "disk\n" {
		t.Fatalf("buffer %q", got)
	}
}

func TestEditor_WriteFailureIsOneSentence(t *testing.T) {
	d := t.TempDir()
	p := writeTestFile(t, d, "a.txt", "one\n")
	ed := newFakeEditor(nil)
	ed.failWriteNth = 1
	r := callEditor(t, EditFile(testOpts), d, ed, A{"path": "a.txt", "edits": edits("one", "two")})
	wantError(t, r)
	if r.Text != "a.txt could not be written through the editor: the buffer is read-only." {
		t.Fatalf("got %q", r.Text)
	}
	if got := readTestFile(t, p); got != "one\n" {
		t.Fatalf("disk %q", got)
	}
}
