package lsptool

import (
	"os"
	"path/filepath"
	"testing"
	"time"
)

func TestLineOf(t *testing.T) {
	data := []byte("zero\r\none\n\ntwo")
	for n, want := range []string{"zero", "one", "", "two", ""} {
		if got := lineOf(data, n); got != want {
			t.Errorf("line %d = %q, want %q", n, got, want)
		}
	}
}

// The cache gives a file's new text once it changed (size or time), never a stale one.
func TestFileCacheSeesChanges(t *testing.T) {
	p := filepath.Join(t.TempDir(), "a.go")
	if err := os.WriteFile(p, []byte("package a\nfunc A() {}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	lc := lineCache{}
	if got := lc.line(p, 1); got != "func A() {}" {
		t.Fatalf("line 2: %q", got)
	}
	if err := os.WriteFile(p, []byte("package a\nfunc B() {}\n"), 0o644); err != nil { // same size
		t.Fatal(err)
	}
	later := time.Now().Add(2 * time.Second)
	if err := os.Chtimes(p, later, later); err != nil {
		t.Fatal(err)
	}
	if got := (lineCache{}).line(p, 1); got != "func B() {}" {
		t.Errorf("after a change: %q", got)
	}
	if got := (lineCache{}).line(filepath.Join(t.TempDir(), "missing"), 0); got != "" {
		t.Errorf("a missing file: %q", got)
	}
}
