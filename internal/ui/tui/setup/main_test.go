package setup

import (
	"testing"

	"go.uber.org/goleak"
)

// Run starts bubbletea's goroutines (input, renderer, signals): none may outlive it.
func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }
