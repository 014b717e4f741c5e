package lsptool

import (
	"fmt"
	"os"
	"testing"

	"go.uber.org/goleak"
)

// TestMain runs the tests with a temporary folder of their own: tsserver leaves an
// empty folder in its temporary folder each time it starts, and the tests start it
// many times; what it leaves goes with this folder.
func TestMain(m *testing.M) {
	dir, err := os.MkdirTemp("", "lsptool-test-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	if err := os.Setenv("TMPDIR", dir); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	goleak.VerifyTestMain(m, goleak.Cleanup(func(code int) {
		if err := os.RemoveAll(dir); err != nil {
			fmt.Fprintln(os.Stderr, err)
			code = max(code, 1)
		}
		os.Exit(code)
	}))
}
