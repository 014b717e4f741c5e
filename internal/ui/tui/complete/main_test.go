package complete

import (
	"testing"

	"go.uber.org/goleak"
)

// The walker behind Files runs goroutines.
func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }
