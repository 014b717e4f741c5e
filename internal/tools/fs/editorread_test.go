package fs

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gantry-dev/gantry/internal/tool"
)

func TestEditor_ReadFileSeesUnsavedBuffer(t *testing.T) {
	d := t.TempDir()
	p := writeTestFile(t, d, "a.txt", "saved\n")
	ed := newFakeEditor(map[string]string{p: "unsaved one\nunsaved two\n"})
	r := callEditor(t, ReadFile(testOpts), d, ed, A{"path": "a.txt"})
	wantOK(t, r)
	if r.Text != "unsaved one\nunsaved two\n" {
		t.Fatalf("got %q", r.Text)
	}
	if got := ed.callLog(); len(got) != 1 || got[0] != "read "+p {
		t.Fatalf("calls %v", got)
	}
}

// TestEditor_ReadFileOutputEqualsDisk reads the same content once from disk and once
// from an editor's buffer (the disk then holding something else), with every kind of
// range, and wants the very same result.
func TestEditor_ReadFileOutputEqualsDisk(t *testing.T) {
	contents := map[string]string{
		"lines":      numberedLines(50),
		"no final":   "alpha\nbeta\ngamma",
		"crlf":       "one\r\ntwo\r\nthree\r\n",
		"long line":  "short\n" + strings.Repeat("é", 5000) + "\nend\n",
		"empty":      "",
		"one line":   "x",
		"blank ends": "\n\n\n",
	}
	ranges := []A{
		{},
		{"numbered": true},
		{"start": 3},
		{"start": 2, "end": 4, "numbered": true},
		{"end": 1},
		{"start": 60},
		{"start": 3, "end": 3},
	}
	small := Options{MaxOutput: 400} // stops early on the longer contents
	for name, content := range contents {
		for _, rg := range ranges {
			for _, o := range []Options{testOpts, small} {
				args := A{"path": "f.txt"}
				for k, v := range rg {
					args[k] = v
				}
				label := fmt.Sprintf("%s %v max=%d", name, rg, o.MaxOutput)
				disk := t.TempDir()
				writeTestFile(t, disk, "f.txt", content)
				want := call(t, ReadFile(o), disk, args)

				buf := t.TempDir()
				p := writeTestFile(t, buf, "f.txt", "something else on disk\n")
				ed := newFakeEditor(map[string]string{p: content})
				got := callEditor(t, ReadFile(o), buf, ed, args)
				if got.Text != want.Text || got.IsError != want.IsError {
					t.Fatalf("%s:\neditor %q (error %v)\ndisk   %q (error %v)", label, got.Text, got.IsError, want.Text, want.IsError)
				}
				if len(ed.callLog()) != 1 {
					t.Fatalf("%s: the editor was not asked: %v", label, ed.callLog())
				}
			}
		}
	}
}

func TestEditor_ReadFileImageAndBinaryFromDisk(t *testing.T) {
	d := t.TempDir()
	img := filepath.Join(d, "pic.png")
	if err := os.WriteFile(img, pngBytes(t, 40, 30), 0o644); err != nil {
		t.Fatal(err)
	}
	bin := writeTestFile(t, d, "blob.bin", "\x00\x01\x02binary")
	ed := newFakeEditor(map[string]string{img: "text?", bin: "text?"})

	r := callEditor(t, ReadFile(testOpts), d, ed, A{"path": "pic.png"})
	wantOK(t, r)
	if len(r.Images) != 1 {
		t.Fatalf("no image: %s", r.Text)
	}
	wantError(t, callEditor(t, ReadFile(testOpts), d, ed, A{"path": "blob.bin"}), "blob.bin is a binary file")
	wantError(t, callEditor(t, ReadFile(testOpts), d, ed, A{"path": "."}), "is a directory")
	if got := ed.callLog(); len(got) != 0 {
		t.Fatalf("the editor was asked: %v", got)
	}
}

func TestEditor_ReadFileLargeFileFromDisk(t *testing.T) {
	d := t.TempDir()
	p := writeTestFile(t, d, "big.txt", strings.Repeat("0123456789abcde\n", (maxEditorText/16)+1))
	ed := newFakeEditor(map[string]string{p: "small buffer\n"})
	r := callEditor(t, ReadFile(testOpts), d, ed, A{"path": "big.txt", "end": 1})
	wantOK(t, r)
	if r.Text != "0123456789abcde" || len(ed.callLog()) != 0 {
		t.Fatalf("got %q, calls %v", r.Text, ed.callLog())
	}
}

func TestEditor_ReadFileMissingOnDisk(t *testing.T) {
	d := t.TempDir()
	p := filepath.Join(d, "new.go")
	ed := newFakeEditor(map[string]string{p: "package x\n"})
	r := callEditor(t, ReadFile(testOpts), d, ed, A{"path": "new.go"})
	wantOK(t, r)
	if r.Text != "package x\n" {
		t.Fatalf("got %q", r.Text)
	}
	// Neither the disk nor the editor has it: the usual sentence, not the editor's error.
	r = callEditor(t, ReadFile(testOpts), d, ed, A{"path": "other.go"})
	wantError(t, r, missingFile("other.go"))
	if strings.Contains(r.Text, "editor") {
		t.Fatalf("got %q", r.Text)
	}
}

func TestEditor_ReadFailureIsOneSentence(t *testing.T) {
	d := t.TempDir()
	writeTestFile(t, d, "src/a.go", "package a\n")
	ed := newFakeEditor(nil)
	ed.failRead = errors.New("connection lost.")
	const nothing = "src/a.go could not be read through the editor: connection lost; nothing was written."
	for _, c := range []struct {
		tool string
		args A
		want string
	}{
		{"read_file", A{"path": "src/a.go"}, "src/a.go could not be read through the editor: connection lost."},
		{"edit_file", A{"path": "src/a.go", "edits": edits("a", "b")}, nothing},
		{"write_file", A{"path": "src/a.go", "content": "x\n"}, nothing},
		{"apply_patch", A{"patch": "*** Begin Patch\n*** Update File: src/a.go\n@@\n-package a\n+package b\n*** End Patch"}, nothing},
	} {
		tl := map[string]func(Options) tool.Tool{"read_file": ReadFile, "edit_file": EditFile, "write_file": WriteFile, "apply_patch": ApplyPatch}[c.tool]
		r := callEditor(t, tl(testOpts), d, ed, c.args)
		wantError(t, r)
		if r.Text != c.want {
			t.Errorf("%s: got %q, want %q", c.tool, r.Text, c.want)
		}
	}
	if got := readTestFile(t, filepath.Join(d, "src/a.go")); got != "package a\n" {
		t.Fatalf("the file changed: %q", got)
	}
}
