// Package testenv is for tests that need a program of the machine (a language
// server, a debug adapter, ripgrep, Node.js): where .ci/run has installed every one
// (it sets GANTRY_TEST_ADAPTERS), a missing program fails the test instead of
// skipping it, so that a suite cannot pass by running nothing.
package testenv

import (
	"os"
	"testing"
)

// Installed reports whether .ci/run says every program the tests need is here.
func Installed() bool { return os.Getenv("GANTRY_TEST_ADAPTERS") != "" }

// Missing ends a test whose program is not here, saying why: a skip on a
// developer's machine, a failure where everything should be installed.
func Missing(t testing.TB, why string) {
	t.Helper()
	if Installed() {
		t.Fatalf("%s (.ci/run installs it, and GANTRY_TEST_ADAPTERS says everything is installed)", why)
	}
	t.Skip(why)
}
