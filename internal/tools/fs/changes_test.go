package fs

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/gantry-dev/gantry/internal/tool"
)

// The tests below run without an editor: Display.Changes comes from the disk.

func TestChanges_WriteFile(t *testing.T) {
	d := t.TempDir()
	p := filepath.Join(d, "a.txt")
	r := call(t, WriteFile(testOpts), d, A{"path": "a.txt", "content": "one\n"})
	wantOK(t, r)
	wantChanges(t, r.Display.Changes, tool.FileChange{Path: p, Created: true, New: "one\n"})

	r = call(t, WriteFile(testOpts), d, A{"path": p, "content": "two\n"})
	wantOK(t, r)
	wantChanges(t, r.Display.Changes, tool.FileChange{Path: p, Old: "one\n", New: "two\n"})

	r = call(t, WriteFile(testOpts), d, A{"path": "a.txt", "content": "two\n"})
	wantOK(t, r)
	wantChanges(t, r.Display.Changes)
}

func TestChanges_LeavesOutBinaryAndLarge(t *testing.T) {
	d := t.TempDir()
	r := call(t, WriteFile(testOpts), d, A{"path": "bin", "content": "a\x00b"})
	wantOK(t, r)
	wantChanges(t, r.Display.Changes)

	big := strings.Repeat("x", maxChangeText/2)
	writeTestFile(t, d, "big.txt", big)
	r = call(t, WriteFile(testOpts), d, A{"path": "big.txt", "content": big + "y"})
	wantOK(t, r)
	wantChanges(t, r.Display.Changes)
}

func TestChanges_EditFile(t *testing.T) {
	d := t.TempDir()
	p := writeTestFile(t, d, "main.go", goSrc)
	want := strings.Replace(goSrc, "return 42", "return 43", 1)
	r := call(t, EditFile(testOpts), d, A{"path": "main.go", "edits": edits("return 42", "return 43"), "dry_run": true})
	wantOK(t, r)
	wantChanges(t, r.Display.Changes, tool.FileChange{Path: p, Old: goSrc, New: want})
	if readTestFile(t, p) != goSrc {
		t.Fatal("the dry run wrote")
	}
	r = call(t, EditFile(testOpts), d, A{"path": "main.go", "edits": edits("return 42", "return 43")})
	wantOK(t, r)
	wantChanges(t, r.Display.Changes, tool.FileChange{Path: p, Old: goSrc, New: want})
}

func TestChanges_ApplyPatch(t *testing.T) {
	d := t.TempDir()
	a := writeTestFile(t, d, "a.txt", "1\n2\n")
	gone := writeTestFile(t, d, "gone.txt", "x\n")
	writeTestFile(t, d, "m.txt", "m\n")
	writeTestFile(t, d, "blob", "\x00\x01")
	patch := "*** Begin Patch\n" +
		"*** Update File: a.txt\n@@\n-2\n+two\n" +
		"*** Delete File: gone.txt\n" +
		"*** Delete File: blob\n" +
		"*** Update File: m.txt\n*** Move to: dir/m2.txt\n@@\n-m\n+moved\n" +
		"*** Add File: n.txt\n+n\n" +
		"*** End Patch"
	r := call(t, ApplyPatch(testOpts), d, A{"patch": patch})
	wantOK(t, r)
	wantChanges(t, r.Display.Changes,
		tool.FileChange{Path: a, Old: "1\n2\n", New: "1\ntwo\n"},
		tool.FileChange{Path: gone, Deleted: true, Old: "x\n"},
		tool.FileChange{Path: filepath.Join(d, "dir", "m2.txt"), Old: "m\n", New: "moved\n"},
		tool.FileChange{Path: filepath.Join(d, "n.txt"), Created: true, New: "n\n"},
	)
}
