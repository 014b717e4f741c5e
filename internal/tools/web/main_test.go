package web

import (
	"fmt"
	"os"
	"testing"

	"go.uber.org/goleak"
)

// TestMain checks that no goroutine outlives the tests once the idle connections of
// the shared transport are closed.
func TestMain(m *testing.M) {
	code := m.Run()
	sharedTransport().CloseIdleConnections()
	if code == 0 {
		if err := goleak.Find(); err != nil {
			fmt.Fprintln(os.Stderr, "goleak:", err)
			code = 1
		}
	}
	os.Exit(code)
}
