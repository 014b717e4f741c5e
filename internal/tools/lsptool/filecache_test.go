package lsptool

import (
	"os"
	"path/filepath"
	"testing"
	"time"
)

func TestLineOf(t *testing.T) {
	for _, c := range []struct {
		data string
		want []string
	}{
		{"zero\r\none\n\ntwo", []string{"zero", "one", "", "two", ""}},
		{"a\nb\n", []string{"a", "b", ""}},
		{"", []string{"", ""}},
		{"\n", []string{"", ""}},
	} {
		f := &fileText{data: []byte(c.data), starts: lineStarts([]byte(c.data))}
		for n, want := range c.want {
			if got := f.line(n); got != want {
				t.Errorf("%q: line %d = %q, want %q", c.data, n, got, want)
			}
		}
		if got := f.line(-1); got != "" {
			t.Errorf("line -1 = %q", got)
		}
	}
	var none *fileText
	if none.line(0) != "" {
		t.Error("a missing file has a line")
	}
}

// The cache gives a file's new text once it changed (size or time), never a stale one.
func TestFileCacheSeesChanges(t *testing.T) {
	p := filepath.Join(t.TempDir(), "a.go")
	if err := os.WriteFile(p, []byte("package a\nfunc A() {}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if got := files.text(p).line(1); got != "func A() {}" {
		t.Fatalf("line 2: %q", got)
	}
	if err := os.WriteFile(p, []byte("package a\nfunc B() {}\n"), 0o644); err != nil { // same size
		t.Fatal(err)
	}
	later := time.Now().Add(2 * time.Second)
	if err := os.Chtimes(p, later, later); err != nil {
		t.Fatal(err)
	}
	if got := files.text(p).line(1); got != "func B() {}" {
		t.Errorf("after a change: %q", got)
	}
	if got := files.text(filepath.Join(t.TempDir(), "missing")).line(0); got != "" {
		t.Errorf("a missing file: %q", got)
	}
}

// A file read just after it changed is read again next time, even when a second
// change keeps its size and time (the kernel's coarse clock).
func TestFileCacheRacyEntry(t *testing.T) {
	p := filepath.Join(t.TempDir(), "a.go")
	stamp := time.Now()
	write := func(text string) {
		t.Helper()
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
		if err := os.Chtimes(p, stamp, stamp); err != nil { // the same tick both times
			t.Fatal(err)
		}
	}
	c := &fileCache{m: map[string]*fileText{}}
	write("package a\nfunc A() {}\n")
	if got := c.text(p); got == nil || string(got.data) != "package a\nfunc A() {}\n" {
		t.Fatalf("first read: %v", got)
	}
	write("package a\nfunc B() {}\n")
	if got := c.text(p); got == nil || string(got.data) != "package a\nfunc B() {}\n" {
		t.Errorf("a change within the tick of the last read gave the stale text %v", got)
	}
	// An old file is trusted: no read while its size and time stay.
	old := time.Now().Add(-time.Hour)
	if err := os.Chtimes(p, old, old); err != nil {
		t.Fatal(err)
	}
	first, again := c.text(p), c.text(p)
	if first == nil || first != again {
		t.Errorf("an unchanged old file was read again")
	}
	if _, err := c.get(filepath.Dir(p)); err == nil {
		t.Errorf("a folder read as a file")
	}
}
