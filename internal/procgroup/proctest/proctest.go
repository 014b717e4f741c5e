// Package proctest holds what tests that start commands need to watch them: whether a
// process is still there, and waiting for a condition with a bound.
package proctest

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// Running reports whether a process whose command line holds marker is alive.
func Running(marker string) bool {
	dirs, _ := filepath.Glob("/proc/[0-9]*/cmdline")
	for _, d := range dirs {
		if b, err := os.ReadFile(d); err == nil && strings.Contains(string(b), marker) {
			return true
		}
	}
	return false
}

// WaitUntil polls cond every 10 ms and fails the test, saying what it waited for, when
// cond does not hold within 10 s.
func WaitUntil(t testing.TB, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("waited 10 s in vain for %s", what)
		}
		time.Sleep(10 * time.Millisecond)
	}
}
