package fs

import (
	"strings"
	"testing"
)

func TestBestWindow(t *testing.T) {
	lines := strings.Split("package x\n\nfunc add(a, b int) int {\n\treturn a + b\n}\n\nfunc sub(a, b int) int {\n\treturn a - b\n}", "\n")
	start, score, space := bestWindow(lines, []string{"func sub(a, b int) int {", "\treturn a + b", "}"})
	if start != 6 || space || score < 0.8 {
		t.Fatalf("start %d score %.2f space %v", start, score, space)
	}
	start, _, space = bestWindow(lines, []string{"func  add(a, b int) int {", "  return a + b"})
	if start != 2 || !space {
		t.Fatalf("start %d space %v", start, space)
	}
}

// TestBestWindow_LargeFile takes the one-line fallback past closestMaxWork comparisons
// and still finds the region.
func TestBestWindow_LargeFile(t *testing.T) {
	const n = 2_200_000
	lines := make([]string, n)
	for i := range lines {
		lines[i] = "\tnoise = noise + 1"
	}
	want := []string{"func target() {", "\tx := compute(42)", "\treturn x", "}", "", "", "", "", "", ""}
	copy(lines[1_500_000:], []string{"func target() {", "\tx := compute(41)", "\treturn x", "}"})
	if n*len(want) <= closestMaxWork {
		t.Fatal("the test no longer exercises the fallback")
	}
	start, _, _ := bestWindow(lines, want)
	if start != 1_500_000 {
		t.Fatalf("start %d", start)
	}
}

func TestSimilarity(t *testing.T) {
	for _, c := range []struct {
		a, b     string
		min, max float64
	}{
		{"abc", "abc", 1, 1},
		{"  abc", "abc\t", 1, 1},
		{"a b c", "abc", 0.95, 0.95},
		{"return x + 1", "return x + 2", 0.9, 0.99},
		{"abc", "xyz", 0, 0},
		{"", "", 1, 1},
	} {
		if s := similarity(c.a, c.b); s < c.min || s > c.max {
			t.Errorf("similarity(%q, %q) = %.3f, want [%.2f, %.2f]", c.a, c.b, s, c.min, c.max)
		}
	}
}
