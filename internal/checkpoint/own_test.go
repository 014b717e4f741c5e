package checkpoint

import (
	"context"
	"os"
	"path/filepath"
	"testing"
)

// A file gantry wrote into the project of its own (Leave) is never kept: not by this
// repository, nor by another opened on the same project later (another session), and
// a rewind neither removes it nor counts it as changed. A path outside the project is
// left alone.
func TestLeftFilesAreNeverKept(t *testing.T) {
	work, root := t.TempDir(), t.TempDir()
	write(t, work, "a.go", "package a\n", 0o644)
	r, err := Open(work, Options{Root: root})
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	before, err := r.Snapshot(ctx, "refs/gantry/t/1", "before the export")
	if err != nil {
		t.Fatal(err)
	}
	export := filepath.Join(work, "notes", "talk.md")
	if err := r.Leave(export); err != nil {
		t.Fatal(err)
	}
	if err := r.Leave(filepath.Join(t.TempDir(), "elsewhere.md")); err != nil {
		t.Fatal(err)
	}
	write(t, filepath.Join(work, "notes"), "talk.md", "# the talk\n", 0o644)
	write(t, work, "a.go", "package b\n", 0o644)
	other, err := Open(work, Options{Root: root}) // another session of the project
	if err != nil {
		t.Fatal(err)
	}
	now, err := other.Snapshot(ctx, "refs/gantry/u/now", "now")
	if err != nil {
		t.Fatal(err)
	}
	if n := other.Files(ctx, now); n != 1 {
		t.Errorf("the snapshot keeps %d files, want a.go alone", n)
	}
	changes, err := r.Diff(ctx, before.Commit, now.Commit)
	if err != nil {
		t.Fatal(err)
	}
	if len(changes) != 1 || changes[0].Path != "a.go" {
		t.Errorf("changes since the first snapshot: %+v, want a.go alone", changes)
	}
	if _, err := r.Restore(ctx, before, "refs/gantry/t/2"); err != nil {
		t.Fatal(err)
	}
	if b, _ := os.ReadFile(export); string(b) != "# the talk\n" {
		t.Errorf("the export after the rewind: %q", b)
	}
	if b, _ := os.ReadFile(filepath.Join(work, "a.go")); string(b) != "package a\n" {
		t.Errorf("a.go after the rewind: %q", b)
	}
}
