package lsptool

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/gantry-dev/gantry/internal/dirwatch"
)

// The queried file's entry is trusted without a stat once the folders up to the
// workspace are watched, and it still "does not exist" after any of those folders,
// or the file, is renamed or removed, as when it was checked by stat each time.
func TestQueriedFileStillExists(t *testing.T) {
	for _, c := range []struct {
		name   string
		change func(ws string) error
	}{
		{"file renamed", func(ws string) error {
			return os.Rename(filepath.Join(ws, "a/b/f.go"), filepath.Join(ws, "a/b/g.go"))
		}},
		{"file removed", func(ws string) error { return os.Remove(filepath.Join(ws, "a/b/f.go")) }},
		{"its folder renamed", func(ws string) error { return os.Rename(filepath.Join(ws, "a/b"), filepath.Join(ws, "a/c")) }},
		{"a folder above renamed", func(ws string) error { return os.Rename(filepath.Join(ws, "a"), filepath.Join(ws, "z")) }},
		{"a folder above removed", func(ws string) error { return os.RemoveAll(filepath.Join(ws, "a")) }},
	} {
		t.Run(c.name, func(t *testing.T) {
			j := dirwatch.New()
			defer func() { _ = j.Close() }()
			if !j.Watch(t.TempDir()) {
				t.Skip("no change journal on this system: every query's file is checked by stat")
			}
			ws := t.TempDir()
			writeTree(t, ws, map[string]string{"a/b/f.go": "package b\n"})
			p := filepath.Join(ws, "a/b/f.go")
			fc := newFileCache(j)
			fc.refresh()
			f, err := fc.queried(p, ws)
			if err != nil || !f.anchored || string(f.data) != "package b\n" {
				t.Fatalf("first read: %v, anchored %v, %q", err, f != nil && f.anchored, f.data)
			}
			fc.refresh()
			if again, err := fc.queried(p, ws); err != nil || again != f {
				t.Fatalf("unchanged, the anchored entry is not reused: %v", err)
			}
			if err := c.change(ws); err != nil {
				t.Fatal(err)
			}
			fc.refresh()
			if f, err := fc.queried(p, ws); !os.IsNotExist(err) {
				t.Fatalf("after the change: %v, %v; want does not exist", f, err)
			}
		})
	}
}
