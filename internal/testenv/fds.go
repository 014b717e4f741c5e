package testenv

import (
	"os"
	"path/filepath"
	"testing"
)

// InotifyFDs counts the test process's open inotify instances (Linux's
// /proc/self/fd): a test that something opens no watcher before it is needed, or
// closes the one it opened, compares the count before and after.
func InotifyFDs(t testing.TB) int {
	t.Helper()
	fds, err := os.ReadDir("/proc/self/fd")
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, fd := range fds {
		if l, err := os.Readlink(filepath.Join("/proc/self/fd", fd.Name())); err == nil && l == "anon_inode:inotify" {
			n++
		}
	}
	return n
}
