package lsptool

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/gantry-dev/gantry/internal/testenv"

	"github.com/gantry-dev/gantry/internal/dirwatch"
	"github.com/gantry-dev/gantry/internal/lsp"
	"github.com/gantry-dev/gantry/internal/resource"
	"github.com/gantry-dev/gantry/internal/tool"
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

// The cache gives a file's new text once it changed, never a stale one: with the
// change journal even a change that keeps the file's size and time, which no stat
// can see; without it, once the size or time differ.
func TestFileCacheSeesChanges(t *testing.T) {
	for _, c := range []struct {
		name    string
		journal *dirwatch.Journal
	}{{"journal", dirwatch.New()}, {"stat", nil}} {
		t.Run(c.name, func(t *testing.T) {
			defer func() { _ = c.journal.Close() }()
			fc := newFileCache(c.journal)
			p := filepath.Join(t.TempDir(), "a.go")
			old := time.Now().Add(-time.Hour)
			write := func(text string) {
				t.Helper()
				if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
					t.Fatal(err)
				}
				if err := os.Chtimes(p, old, old); err != nil {
					t.Fatal(err)
				}
			}
			write("package a\nfunc A() {}\n")
			if got := fc.text(p).line(1); got != "func A() {}" {
				t.Fatalf("line 2: %q", got)
			}
			fc.refresh()
			if first, again := fc.text(p), fc.text(p); first != again {
				t.Fatal("an unchanged file was read again")
			}
			write("package a\nfunc B() {}\n") // same size, same time
			fc.refresh()
			if c.journal == nil || runtime.GOOS != "linux" {
				// What a stat cannot see stays; a new time is seen.
				later := time.Now().Add(-time.Minute)
				if err := os.Chtimes(p, later, later); err != nil {
					t.Fatal(err)
				}
				if got := fc.text(p).line(1); got != "func B() {}" {
					t.Errorf("after a change of time: %q", got)
				}
				return
			}
			if got := fc.text(p).line(1); got != "func B() {}" {
				t.Errorf("after a change of the same size and time: %q", got)
			}
			// Removed, and its folder with it: not given from the cache.
			if err := os.RemoveAll(filepath.Dir(p)); err != nil {
				t.Fatal(err)
			}
			fc.refresh()
			if got := fc.text(p); got != nil {
				t.Errorf("a removed file: %q", got.data)
			}
			if got := fc.text(filepath.Join(t.TempDir(), "missing")).line(0); got != "" {
				t.Errorf("a missing file: %q", got)
			}
		})
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
	c := newFileCache(nil) // (with the journal an entry is not trusted on its time)
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
	out, summary := formatLocations(newFileCache(nil), tool.Env{Cwd: dir}, locs, 50, "references")
	lines := strings.Split(out, "\n")
	if len(lines) != 51 || lines[0] != "a.go:1: line 1 of a.go" || lines[30] != "b.go:1: line 1 of b.go" ||
		lines[49] != "b.go:20: line 20 of b.go" || lines[50] != "(60 references; the first 50 are shown.)" {
		t.Fatalf("formatted:\n%s", out)
	}
	if summary != "60 references in 2 file(s)" {
		t.Fatalf("summary %q", summary)
	}
}

// The file cache is a resource of the process's pool: none before a query needs it,
// its journal opened by the first file it reads, shared by the sessions' pools, and
// closed with the process's pool — no inotify instance outlives it.
func TestFileCacheIsAProcessResource(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("the change journal is inotify, on Linux only")
	}
	before := testenv.InotifyFDs(t)
	proc := resource.NewPool(nil)
	s1, s2 := proc.Child(resource.Session), proc.Child(resource.Session)
	m1, m2 := lsp.NewManager(s1, lsp.Options{}), lsp.NewManager(s2, lsp.Options{})
	if got := proc.Running(); len(got) != 0 || testenv.InotifyFDs(t) != before {
		t.Fatalf("building Managers started %v and opened %d inotify instances", got, testenv.InotifyFDs(t)-before)
	}
	fc := filesOf(context.Background(), m1)
	if fc != filesOf(context.Background(), m2) {
		t.Error("two sessions of one process have two file caches")
	}
	if testenv.InotifyFDs(t) != before {
		t.Error("the cache opened its journal before reading a file")
	}
	p := filepath.Join(t.TempDir(), "a.go")
	if err := os.WriteFile(p, []byte("package a\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	fc.refresh()
	if _, err := fc.get(p); err != nil {
		t.Fatal(err)
	}
	if testenv.InotifyFDs(t) != before+1 {
		t.Errorf("after the first read %d inotify instances are open, want 1", testenv.InotifyFDs(t)-before)
	}
	if err := s1.Close(context.Background()); err != nil {
		t.Fatal(err)
	}
	if testenv.InotifyFDs(t) != before+1 {
		t.Error("a session's end closed the process's file cache")
	}
	if err := proc.Close(context.Background()); err != nil {
		t.Fatal(err)
	}
	if testenv.InotifyFDs(t) != before {
		t.Errorf("%d inotify instances outlive the process's pool", testenv.InotifyFDs(t)-before)
	}
}
