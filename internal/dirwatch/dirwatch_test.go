package dirwatch

import (
	"os"
	"path/filepath"
	"runtime"
	"testing"
	"time"
)

func newJournal(t *testing.T) *Journal {
	t.Helper()
	if runtime.GOOS != "linux" {
		t.Skip("a change journal is Linux's")
	}
	j := New()
	t.Cleanup(func() {
		if err := j.Close(); err != nil {
			t.Error(err)
		}
	})
	return j
}

func write(t *testing.T, p, s string) {
	t.Helper()
	if err := os.WriteFile(p, []byte(s), 0o644); err != nil {
		t.Fatal(err)
	}
}

func TestJournalNamesEveryKindOfChange(t *testing.T) {
	j := newJournal(t)
	dir := t.TempDir()
	a, b := filepath.Join(dir, "a.go"), filepath.Join(dir, "b.go")
	write(t, a, "package a\n")
	write(t, b, "package b\n")
	if !j.Watch(dir) {
		t.Fatal("a temporary folder could not be watched")
	}
	if c := j.Drain(); c.Any() {
		t.Fatalf("nothing changed after the watch, got %+v", c)
	}
	cases := []struct {
		name   string
		change func()
		want   []string
	}{
		{"write", func() { write(t, a, "package a // changed\n") }, []string{a}},
		{"same size, same second", func() { write(t, a, "package a // chang3d\n") }, []string{a}},
		{"truncate", func() {
			if err := os.Truncate(b, 3); err != nil {
				t.Fatal(err)
			}
		}, []string{b}},
		{"mode", func() {
			if err := os.Chmod(b, 0o600); err != nil {
				t.Fatal(err)
			}
		}, []string{b}},
		{"times", func() {
			if err := os.Chtimes(a, time.Unix(1, 0), time.Unix(1, 0)); err != nil {
				t.Fatal(err)
			}
		}, []string{a}},
		{"rename over (an editor's atomic save)", func() {
			tmp := filepath.Join(dir, ".a.go.tmp")
			write(t, tmp, "package a // saved\n")
			if err := os.Rename(tmp, a); err != nil {
				t.Fatal(err)
			}
		}, []string{a, filepath.Join(dir, ".a.go.tmp")}},
		{"remove", func() {
			if err := os.Remove(b); err != nil {
				t.Fatal(err)
			}
		}, []string{b}},
		{"create", func() { write(t, b, "package b\n") }, []string{b}},
	}
	for _, tc := range cases {
		tc.change()
		c := j.Drain()
		for _, p := range tc.want {
			if !c.Changed(p) {
				t.Errorf("%s: %s not named as changed: %+v", tc.name, p, c)
			}
		}
		if len(c.Paths) != len(tc.want) || c.All || len(c.Folders) > 0 {
			t.Errorf("%s: want exactly %v, got %+v", tc.name, tc.want, c)
		}
		if c := j.Drain(); c.Any() {
			t.Errorf("%s: a second drain found %+v", tc.name, c)
		}
	}
	// A read changes nothing.
	if _, err := os.ReadFile(a); err != nil {
		t.Fatal(err)
	}
	if c := j.Drain(); c.Any() {
		t.Errorf("a read was taken for a change: %+v", c)
	}
}

func TestJournalFolderGone(t *testing.T) {
	j := newJournal(t)
	root := t.TempDir()
	sub := filepath.Join(root, "sub")
	moved := filepath.Join(root, "moved")
	if err := os.Mkdir(sub, 0o755); err != nil {
		t.Fatal(err)
	}
	write(t, filepath.Join(sub, "x.py"), "x = 1\n")
	if !j.Watch(sub) {
		t.Fatal("not watched")
	}
	if err := os.Rename(sub, moved); err != nil {
		t.Fatal(err)
	}
	c := j.Drain()
	if !c.Changed(filepath.Join(sub, "x.py")) || len(c.Folders) != 1 || c.Folders[0] != sub {
		t.Fatalf("a renamed folder is not gone: %+v", c)
	}
	// Its old watch reports nothing under the old name.
	write(t, filepath.Join(moved, "x.py"), "x = 2\n")
	if c := j.Drain(); c.Any() {
		t.Fatalf("the moved folder's changes were reported: %+v", c)
	}
	// Watched again once it exists again; removed, it is gone again.
	if j.Watch(sub) {
		t.Fatal("a folder that does not exist was watched")
	}
	if err := os.Mkdir(sub, 0o755); err != nil {
		t.Fatal(err)
	}
	if j.Watch(sub) {
		t.Fatal("a folder refused is tried again only after a drain says something changed")
	}
	if !j.Watch(root) {
		t.Fatal("root not watched")
	}
	write(t, filepath.Join(root, "touch"), "")
	if c := j.Drain(); !c.Changed(filepath.Join(root, "touch")) {
		t.Fatalf("root's change not seen: %+v", c)
	}
	if !j.Watch(sub) {
		t.Fatal("the folder made again is not watched after a drain")
	}
	if err := os.RemoveAll(sub); err != nil {
		t.Fatal(err)
	}
	c = j.Drain()
	if !c.Changed(filepath.Join(sub, "anything")) {
		t.Fatalf("a removed folder is not gone: %+v", c)
	}
	if c.Changed(filepath.Join(root, "subway")) {
		t.Fatal("a sibling with the same prefix was taken as under the gone folder")
	}
}

func TestJournalOverflow(t *testing.T) {
	j := newJournal(t)
	dir := t.TempDir()
	p := filepath.Join(dir, "f")
	write(t, p, "")
	if !j.Watch(dir) {
		t.Fatal("not watched")
	}
	// More events than the kernel queues (fs.inotify.max_queued_events, 16384 by
	// default): each change of times is one event (consecutive identical events are
	// merged, so times alternate).
	limit := 16384
	if b, err := os.ReadFile("/proc/sys/fs/inotify/max_queued_events"); err == nil {
		var n int
		for _, ch := range string(b) {
			if ch >= '0' && ch <= '9' {
				n = n*10 + int(ch-'0')
			}
		}
		if n > 0 {
			limit = n
		}
	}
	if limit > 1<<20 {
		t.Skipf("the kernel queues %d events", limit)
	}
	for i := range limit + 100 {
		if i%2 == 0 {
			write(t, p, "x")
		} else if err := os.Chmod(p, 0o600|os.FileMode(i%2)); err != nil {
			t.Fatal(err)
		}
	}
	c := j.Drain()
	if !c.All || !c.Changed("/anything") {
		t.Fatalf("an overflow must say every entry changed, got %d paths, All %v", len(c.Paths), c.All)
	}
	if c := j.Drain(); c.All {
		t.Fatal("the overflow was reported twice")
	}
}

func TestNilAndClosedJournal(t *testing.T) {
	var j *Journal
	if j.Watch("/") || j.Drain().Any() || j.Close() != nil {
		t.Fatal("a nil journal watches nothing")
	}
	k := New()
	if err := k.Close(); err != nil {
		t.Fatal(err)
	}
	if k.Watch(t.TempDir()) || k.Drain().Any() {
		t.Fatal("a closed journal watches nothing")
	}
}
