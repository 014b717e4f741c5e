package fs

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gantry-dev/gantry/internal/tool"
)

func TestEditor_ApplyPatchAddUpdateDelete(t *testing.T) {
	d := t.TempDir()
	a := writeTestFile(t, d, "a.txt", "1\n2\n3\n")
	gone := writeTestFile(t, d, "gone.txt", "x\n")
	backdate(t, a)
	before := snap(t, a)
	ed := newFakeEditor(map[string]string{a: "1\n2\n3\nunsaved\n"})
	patch := "*** Begin Patch\n*** Update File: a.txt\n@@\n 3\n-unsaved\n+saved\n*** Delete File: gone.txt\n*** Add File: sub/new.txt\n+n\n*** End Patch"

	r := callEditor(t, ApplyPatch(testOpts), d, ed, A{"patch": patch})
	wantOK(t, r)
	newPath := filepath.Join(d, "sub", "new.txt")
	if got, _ := ed.buffer(a); got != "1\n2\n3\nsaved\n" {
		t.Fatalf("a.txt buffer %q", got)
	}
	assertUntouched(t, a, before)
	if _, err := os.Stat(gone); !os.IsNotExist(err) {
		t.Fatalf("gone.txt was not deleted: %v", err)
	}
	if got, _ := ed.buffer(newPath); got != "n\n" {
		t.Fatalf("new.txt buffer %q", got)
	}
	if _, err := os.Stat(filepath.Dir(newPath)); err != nil {
		t.Fatalf("the folder was not made: %v", err)
	}
	wantChanges(t, r.Display.Changes,
		tool.FileChange{Path: a, Old: "1\n2\n3\nunsaved\n", New: "1\n2\n3\nsaved\n"},
		tool.FileChange{Path: gone, Deleted: true, Old: "x\n"},
		tool.FileChange{Path: newPath, Created: true, New: "n\n"},
	)
}

// TestEditor_ApplyPatchRollback makes the editor refuse a write after the first one,
// with an editor that saves what it writes: the updated file gets its old text back
// through the editor, the created file and its folder are removed.
func TestEditor_ApplyPatchRollback(t *testing.T) {
	patch := "*** Begin Patch\n*** Update File: a.txt\n@@\n-old a\n+new a\n*** Add File: sub/new.txt\n+n\n*** Update File: b.txt\n@@\n-old b\n+new b\n*** End Patch"
	for _, failing := range []int{2, 3} {
		d := t.TempDir()
		a := writeTestFile(t, d, "a.txt", "disk a\n")
		b := writeTestFile(t, d, "b.txt", "old b\n")
		ed := newFakeEditor(map[string]string{a: "old a\n"})
		ed.save, ed.failWriteNth = true, failing

		r := callEditor(t, ApplyPatch(testOpts), d, ed, A{"patch": patch})
		wantError(t, r, "The patch could not be applied", "through the editor: the buffer is read-only", "the files already changed were restored")
		if got, _ := ed.buffer(a); got != "old a\n" {
			t.Fatalf("fail at %d: a.txt buffer %q", failing, got)
		}
		if _, err := os.Stat(filepath.Join(d, "sub")); !os.IsNotExist(err) {
			t.Fatalf("fail at %d: the created folder is left: %v", failing, err)
		}
		if got := readTestFile(t, b); got != "old b\n" {
			t.Fatalf("fail at %d: b.txt %q", failing, got)
		}
		log := strings.Join(ed.callLog(), "\n")
		if want := "write " + a; !strings.HasSuffix(log, want) {
			t.Fatalf("fail at %d: a.txt not written back last:\n%s", failing, log)
		}
	}
}

// TestEditor_ApplyPatchRollbackDisk reads through an editor that does not write: a failed
// write restores the disk's own bytes, not the editor's text.
func TestEditor_ApplyPatchRollbackDisk(t *testing.T) {
	d := t.TempDir()
	a := writeTestFile(t, d, "a.txt", "disk a\n")
	ed := newFakeEditor(map[string]string{a: "old a\n"})
	ed.noWrite = true
	writeTestFile(t, d, "plain", "a file where the patch wants a folder\n")
	patch := "*** Begin Patch\n*** Update File: a.txt\n@@\n-old a\n+new a\n*** Add File: plain/new.txt\n+n\n*** End Patch"
	r := callEditor(t, ApplyPatch(testOpts), d, ed, A{"patch": patch})
	wantError(t, r, "The patch could not be applied", "creating the folder of plain/new.txt")
	if got := readTestFile(t, a); got != "disk a\n" {
		t.Fatalf("a.txt %q", got)
	}
	noTempFiles(t, d)
}

func TestEditor_ApplyPatchMoveStaysOnDisk(t *testing.T) {
	d := t.TempDir()
	src := writeTestFile(t, d, "a.txt", "disk\n")
	ed := newFakeEditor(map[string]string{src: "buffer\n"})
	r := callEditor(t, ApplyPatch(testOpts), d, ed, A{"patch": "*** Begin Patch\n*** Update File: a.txt\n*** Move to: b/a.txt\n@@\n-buffer\n+moved\n*** End Patch"})
	wantOK(t, r)
	dest := filepath.Join(d, "b", "a.txt")
	if _, err := os.Stat(src); !os.IsNotExist(err) {
		t.Fatalf("the source is left: %v", err)
	}
	if got, _ := ed.buffer(dest); got != "moved\n" {
		t.Fatalf("dest buffer %q", got)
	}
	wantChanges(t, r.Display.Changes, tool.FileChange{Path: dest, Old: "buffer\n", New: "moved\n"})
}
