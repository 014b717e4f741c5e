//go:build !cgo

package syntax

import (
	"context"
	"errors"
	"testing"
)

// Without cgo every parse says why it cannot, and the table of languages is whole.
func TestNoCgo(t *testing.T) {
	if Available {
		t.Fatal("a build without cgo says it can parse")
	}
	for _, l := range Languages {
		if _, err := Parse(context.Background(), l, []byte("x")); !errors.Is(err, ErrUnavailable) {
			t.Errorf("%s: %v", l.Name, err)
		}
	}
	if ForPath("a.go") == nil || Lookup("ts") == nil {
		t.Error("the table of languages is empty")
	}
}
