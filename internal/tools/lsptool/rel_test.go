package lsptool

import (
	"path/filepath"
	"testing"
)

// under's scan for a clean path agrees with filepath.Clean.
func TestUnderAsClean(t *testing.T) {
	const dir = "/w/s"
	for _, tail := range []string{
		"/a", "/a/b.go", "/a//b", "/a/./b", "/a/../b", "/a/", "/a/.", "/a/..", "/.", "/..", "//", "/",
		"/.a", "/..a", "/a./b", "/a/b..", "/...", "/a/.../b",
	} {
		p := dir + tail
		got, ok := under(p, dir)
		want := filepath.Clean(p) == p
		if ok != want {
			t.Errorf("under(%q): ok %v, want %v (Clean gives %q)", p, ok, want, filepath.Clean(p))
		}
		if ok && got != p[len(dir)+1:] {
			t.Errorf("under(%q) = %q", p, got)
		}
	}
}
