package fs

import (
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/gantry-dev/gantry/internal/tool"
)

func TestWriteFile_CreatesFileAndParents(t *testing.T) {
	d := t.TempDir()
	r := call(t, WriteFile(testOpts), d, A{"path": "a/b/c.txt", "content": "one\ntwo\n"})
	wantOK(t, r)
	if got := readTestFile(t, filepath.Join(d, "a/b/c.txt")); got != "one\ntwo\n" {
		t.Fatalf("content %q", got)
	}
	fi, _ := os.Stat(filepath.Join(d, "a/b/c.txt"))
	if fi.Mode().Perm() != 0o644 {
		t.Fatalf("new file mode %v", fi.Mode().Perm())
	}
	if !strings.HasPrefix(r.Text, "Created a/b/c.txt (2 lines, 8 bytes).") {
		t.Fatalf("headline %q", r.Text)
	}
	noTempFiles(t, filepath.Join(d, "a/b"))
}

func TestWriteFile_NewFileDiff(t *testing.T) {
	d := t.TempDir()
	r := call(t, WriteFile(testOpts), d, A{"path": "n.txt", "content": "hello\nworld"})
	wantOK(t, r)
	want := "--- /dev/null\n+++ b/n.txt\n@@ -0,0 +1,2 @@\n+hello\n+world\n\\ No newline at end of file\n"
	if r.Display.Diff != want {
		t.Fatalf("diff:\n%s\nwant:\n%s", r.Display.Diff, want)
	}
}

func TestWriteFile_ExistingFileReplaced(t *testing.T) {
	d := t.TempDir()
	p := writeTestFile(t, d, "a.txt", "keep\nold\nkeep2\n")
	os.Chmod(p, 0o600)
	r := call(t, WriteFile(testOpts), d, A{"path": "a.txt", "content": "keep\nnew\nkeep2\n"})
	wantOK(t, r)
	if got := readTestFile(t, p); got != "keep\nnew\nkeep2\n" {
		t.Fatalf("content %q", got)
	}
	if fi, _ := os.Stat(p); fi.Mode().Perm() != 0o600 {
		t.Fatalf("mode not kept: %v", fi.Mode().Perm())
	}
	noTempFiles(t, d)
}

func TestWriteFile_OutputHeadlineAndDiff(t *testing.T) {
	d := t.TempDir()
	writeTestFile(t, d, "a.txt", "a\nb\nc\n")
	r := call(t, WriteFile(testOpts), d, A{"path": "a.txt", "content": "a\nB\nc\nd\n"})
	wantOK(t, r)
	want := "Wrote a.txt: +2 -1 lines, first change at line 2.\n\n" +
		"--- a/a.txt\n+++ b/a.txt\n@@ -1,3 +1,4 @@\n a\n-b\n+B\n c\n+d"
	if r.Text != want {
		t.Fatalf("got:\n%s\nwant:\n%s", r.Text, want)
	}
	if r.Display.Diff != strings.SplitN(want, "\n\n", 2)[1]+"\n" {
		t.Fatalf("display diff %q", r.Display.Diff)
	}
}

func TestWriteFile_IdenticalContent(t *testing.T) {
	d := t.TempDir()
	p := writeTestFile(t, d, "a.txt", "same\n")
	backdate(t, p)
	before := snap(t, p)
	r := call(t, WriteFile(testOpts), d, A{"path": "a.txt", "content": "same\n"})
	wantOK(t, r)
	if r.Text != "a.txt already has exactly this content; nothing was written." || r.Display.Diff != "" {
		t.Fatalf("got %q", r.Text)
	}
	assertUntouched(t, p, before)
}

func TestWriteFile_EmptyContent(t *testing.T) {
	d := t.TempDir()
	r := call(t, WriteFile(testOpts), d, A{"path": "e.txt", "content": ""})
	wantOK(t, r)
	if fi, err := os.Stat(filepath.Join(d, "e.txt")); err != nil || fi.Size() != 0 {
		t.Fatalf("empty file not created: %v", err)
	}
}

func TestWriteFile_Directory(t *testing.T) {
	d := t.TempDir()
	os.Mkdir(filepath.Join(d, "dir"), 0o755)
	r := call(t, WriteFile(testOpts), d, A{"path": "dir", "content": "x"})
	wantError(t, r, "dir is a directory")
	if fi, _ := os.Stat(filepath.Join(d, "dir")); !fi.IsDir() {
		t.Fatal("directory replaced")
	}
}

func TestWriteFile_ParentIsFile(t *testing.T) {
	d := t.TempDir()
	writeTestFile(t, d, "f", "x")
	r := call(t, WriteFile(testOpts), d, A{"path": "f/g.txt", "content": "x"})
	wantError(t, r, "f/g.txt cannot be created", "is a file, not a folder")
}

func TestWriteFile_NonRegularFile(t *testing.T) {
	d := t.TempDir()
	if err := syscall.Mkfifo(filepath.Join(d, "pipe"), 0o644); err != nil {
		t.Skip("no FIFOs here:", err)
	}
	done := make(chan tool.Result, 1)
	go func() { done <- call(t, WriteFile(testOpts), d, A{"path": "pipe", "content": "x"}) }()
	select {
	case r := <-done:
		wantError(t, r, "pipe is a named pipe")
	case <-time.After(5 * time.Second):
		t.Fatal("write_file hung on a FIFO")
	}
}

func TestWriteFile_SymlinkKept(t *testing.T) {
	d := t.TempDir()
	real := writeTestFile(t, d, "real.txt", "old\n")
	os.Symlink("real.txt", filepath.Join(d, "link.txt"))
	r := call(t, WriteFile(testOpts), d, A{"path": "link.txt", "content": "new\n"})
	wantOK(t, r)
	if fi, _ := os.Lstat(filepath.Join(d, "link.txt")); fi.Mode()&os.ModeSymlink == 0 {
		t.Fatal("the symlink was replaced by a file")
	}
	if got := readTestFile(t, real); got != "new\n" {
		t.Fatalf("target content %q", got)
	}
}

func TestWriteFile_HugeExistingFile(t *testing.T) {
	d := t.TempDir()
	p := writeTestFile(t, d, "big", "")
	os.Truncate(p, 1<<30) // sparse: no disk, and it must not be loaded
	r := call(t, WriteFile(testOpts), d, A{"path": "big", "content": "small\n"})
	wantOK(t, r)
	if !strings.Contains(r.Text, "too large to diff") || readTestFile(t, p) != "small\n" {
		t.Fatalf("got %q", r.Text)
	}
}

func TestWriteFile_MalformedArgs(t *testing.T) {
	d := t.TempDir()
	wf := WriteFile(testOpts)
	for raw, want := range map[string]string{
		`{"path": "a"}`:                   `"content", which is missing`,
		`{"content": "x"}`:                `"path", which is missing`,
		`{"path": " ", "content": "x"}`:   `"path", which is empty`,
		`{"path": "a", "content": ["x"]}`: `"content" must be a string`,
		`{"path": "a", "content": null}`:  `"content", which is missing`,
	} {
		wantError(t, callRaw(t, wf, d, raw), want)
	}
	if _, err := os.Stat(filepath.Join(d, "a")); err == nil {
		t.Fatal("a malformed call wrote a file")
	}
}

func TestWriteFile_KindAndLocation(t *testing.T) {
	d := t.TempDir()
	wf := WriteFile(testOpts)
	if wf.Level() != tool.LevelWrite || wf.Kind() != tool.KindEdit {
		t.Fatalf("%v %v", wf.Level(), wf.Kind())
	}
	inv, msg := wf.Decode(tool.Env{Cwd: d}, []byte(`{"path":"p.txt","content":""}`))
	if msg != "" || inv.Principal != "p.txt" || inv.Paths[0] != filepath.Join(d, "p.txt") {
		t.Fatalf("%q %q %v", msg, inv.Principal, inv.Paths)
	}
}
