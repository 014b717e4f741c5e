package multiwrite

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func setup(t *testing.T) (string, []File) {
	dir := t.TempDir()
	var fs []File
	for _, n := range []string{"a.go", "b.go", "c.go"} {
		p := filepath.Join(dir, n)
		if err := os.WriteFile(p, []byte("old "+n), 0o640); err != nil {
			t.Fatal(err)
		}
		fs = append(fs, File{Path: p, Old: "old " + n, New: "new " + n, Mode: 0o640})
	}
	return dir, fs
}

func contents(t *testing.T, fs []File) string {
	var out []string
	for _, f := range fs {
		b, err := os.ReadFile(f.Path)
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, string(b))
	}
	return strings.Join(out, "|")
}

func leftovers(t *testing.T, dir string) {
	t.Helper()
	ents, _ := os.ReadDir(dir)
	for _, e := range ents {
		if strings.Contains(e.Name(), ".gantry-") {
			t.Errorf("temporary file left: %s", e.Name())
		}
	}
}

func TestWriteAll(t *testing.T) {
	dir, fs := setup(t)
	if err := Write(fs); err != nil {
		t.Fatal(err)
	}
	if got := contents(t, fs); got != "new a.go|new b.go|new c.go" {
		t.Fatal(got)
	}
	if st, _ := os.Stat(fs[0].Path); st.Mode().Perm() != 0o640 {
		t.Errorf("mode %v", st.Mode())
	}
	leftovers(t, dir)
}

func TestChangedFileRefusesAll(t *testing.T) {
	dir, fs := setup(t)
	if err := os.WriteFile(fs[2].Path, []byte("someone else"), 0o640); err != nil {
		t.Fatal(err)
	}
	err := Write(fs)
	if !errors.Is(err, ErrChanged) || !strings.Contains(err.Error(), "c.go") {
		t.Fatalf("err %v", err)
	}
	if got := contents(t, fs); got != "old a.go|old b.go|someone else" {
		t.Fatal(got)
	}
	leftovers(t, dir)
}

// A failure half-way (the third rename fails, after two files were replaced) leaves
// every file as it was, and no temporary file.
func TestFailureHalfWayLeavesAll(t *testing.T) {
	dir, fs := setup(t)
	calls := 0
	rename = func(from, to string) error {
		if calls++; calls == 3 {
			return errors.New("disk full")
		}
		return os.Rename(from, to)
	}
	t.Cleanup(func() { rename = os.Rename })
	if err := Write(fs); err == nil || !strings.Contains(err.Error(), "disk full") {
		t.Fatalf("err %v", err)
	}
	if got := contents(t, fs); got != "old a.go|old b.go|old c.go" {
		t.Fatal(got)
	}
	leftovers(t, dir)
}
