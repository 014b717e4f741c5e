package lsptool

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"go.lsp.dev/protocol"
	"go.lsp.dev/uri"
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

// Locations are sorted, one line per file line, cut at the limit with a line saying
// so, and summed up for faces.
func TestFormatLocationsCut(t *testing.T) {
	dir := t.TempDir()
	var locs []protocol.Location
	for _, name := range []string{"b.go", "a.go"} {
		p := filepath.Join(dir, name)
		text := ""
		for i := range 30 {
			text += fmt.Sprintf("line %d of %s\n", i+1, name)
		}
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
		for i := 29; i >= 0; i-- {
			l := protocol.Location{URI: uri.File(p), Range: protocol.Range{Start: protocol.Position{Line: uint32(i)}}}
			locs = append(locs, l, l) // each twice: listed once
		}
	}
	out, summary := formatLocations(dir, locs, 50, "references", nil)
	lines := strings.Split(out, "\n")
	if len(lines) != 51 || lines[0] != "a.go:1: line 1 of a.go" || lines[30] != "b.go:1: line 1 of b.go" ||
		lines[49] != "b.go:20: line 20 of b.go" || lines[50] != "(60 references; the first 50 are shown.)" {
		t.Fatalf("formatted:\n%s", out)
	}
	if summary != "60 references in 2 file(s)" {
		t.Fatalf("summary %q", summary)
	}
}
