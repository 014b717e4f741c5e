package mcpclient

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"go.uber.org/goleak"
)

// echoBin is the test MCP server (testdata/echoserver), built once for the tests.
var echoBin string

func TestMain(m *testing.M) {
	dir, err := os.MkdirTemp("", "mcpclient-test-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	echoBin = filepath.Join(dir, "echoserver")
	build := exec.Command("go", "build", "-o", echoBin, "./testdata/echoserver")
	build.Stdout, build.Stderr = os.Stderr, os.Stderr
	if err := build.Run(); err != nil {
		fmt.Fprintln(os.Stderr, "building the echo server:", err)
		_ = os.RemoveAll(dir)
		os.Exit(1)
	}
	goleak.VerifyTestMain(m, goleak.Cleanup(func(int) { _ = os.RemoveAll(dir) }))
}
