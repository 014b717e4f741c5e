//go:build linux

package nsinit

import (
	"os"
	"os/exec"
	"path/filepath"
	"testing"
)

// lookPath finds what os/exec's LookPath finds, and refuses what it refuses (an
// empty folder of PATH, the current one, comes before the program's folder here).
func TestLookPathAsOsExec(t *testing.T) {
	dir := t.TempDir()
	prog := filepath.Join(dir, "prog")
	if err := os.WriteFile(prog, []byte("#!/bin/sh\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Mkdir(filepath.Join(dir, "sub"), 0o755); err != nil {
		t.Fatal(err)
	}
	t.Setenv("PATH", filepath.Join(dir, "missing")+":"+filepath.Join(dir, "sub")+"::"+dir+":"+os.Getenv("PATH"))
	t.Chdir(dir)
	for _, name := range []string{"prog", "sh", prog, "./prog", "no-such-program-here", "sub"} {
		want, werr := exec.LookPath(name)
		got, gerr := lookPath(name)
		if (werr == nil) != (gerr == nil) || werr == nil && got != want {
			t.Errorf("%s: found %q (%v), os/exec finds %q (%v)", name, got, gerr, want, werr)
		}
	}
}
