package tui

import (
	"testing"

	"go.uber.org/goleak"
)

// regexp2 (chroma's, for code highlighting) keeps a clock goroutine for its timeouts.
func TestMain(m *testing.M) {
	goleak.VerifyTestMain(m, goleak.IgnoreAnyFunction("github.com/dlclark/regexp2.runClock"))
}
