package agent

import (
	"errors"
	"fmt"
	"strings"
	"testing"
)

type damaged struct{}

func (damaged) Error() string { return "the store is damaged: move it aside" }
func (damaged) Damaged() bool { return true }

// A turn stopped by a store that cannot write says --continue will go on once it
// can; one stopped by a damaged store does not promise that, its error saying what
// to do instead.
func TestStoreStoppedAdvice(t *testing.T) {
	full := (&StoreStopped{Err: errors.New("disk full")}).Error()
	if !strings.Contains(full, "--continue goes on from there") {
		t.Errorf("a full disk: %q", full)
	}
	bad := (&StoreStopped{Err: fmt.Errorf("writing: %w", damaged{})}).Error()
	if strings.Contains(bad, "--continue") || !strings.Contains(bad, "move it aside") {
		t.Errorf("a damaged store: %q", bad)
	}
}
