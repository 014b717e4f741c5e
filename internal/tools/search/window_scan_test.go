package search

import (
	"regexp/syntax"
	"testing"
)

// A pattern whose every position is a class of three or more bytes gets a window to
// scan for, and the scan finds exactly where the pattern can match.
func TestWindowWithoutAnchor(t *testing.T) {
	re, err := syntax.Parse(`[A-Z][a-z]+[0-9]{3}`, syntax.Perl)
	if err != nil {
		t.Fatal(err)
	}
	w := findWindow(re.Simplify())
	if w == nil || w.anchor != nil || len(w.sets) < minScanRun {
		t.Fatalf("window %+v", w)
	}
	for in, want := range map[string]bool{
		"func TestConcurrentMapWritesIssue69447(t *testing.T)": true,
		"no digits here at all":                                false,
		"x123":                                                 true, // the window: a letter then three digits
		"12 34 567":                                            false,
	} {
		if got := w.index([]byte(in), 0) >= 0; got != want {
			t.Errorf("%q: %v, want %v", in, got, want)
		}
	}
}
