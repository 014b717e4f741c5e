package fs

import (
	"math/rand/v2"
	"strings"
	"testing"
	"time"
)

// TestUnified_MatchesGNUDiff compares with the output of GNU `diff -u` on the same inputs.
func TestUnified_MatchesGNUDiff(t *testing.T) {
	cases := []struct{ a, b, want string }{
		{
			"a\nb\nc\nd\ne\nf\ng\nh\ni\nj\nk\nl\nm\nn\n",
			"a\nB\nc\nd\ne\nf\ng\nh\ni\nj\nk\nm\nn\nN2\n",
			"@@ -1,5 +1,5 @@\n a\n-b\n+B\n c\n d\n e\n@@ -9,6 +9,6 @@\n i\n j\n k\n-l\n m\n n\n+N2\n",
		},
		{"x\n", "x", "@@ -1 +1 @@\n-x\n+x\n\\ No newline at end of file\n"},
		{"", "new\n", "@@ -0,0 +1 @@\n+new\n"},
		{"1\n2\n3\n", "1\n3\n", "@@ -1,3 +1,2 @@\n 1\n-2\n 3\n"},
	}
	for _, c := range cases {
		got := unified("a/f", "b/f", lineDiff(splitLines(c.a), splitLines(c.b)), false)
		if want := "--- a/f\n+++ b/f\n" + c.want; got != want {
			t.Errorf("%q → %q:\ngot:\n%s\nwant:\n%s", c.a, c.b, got, want)
		}
	}
}

// lcs is the length of the longest common subsequence, by dynamic programming.
func lcs(a, b []string) int {
	prev := make([]int, len(b)+1)
	for i := range a {
		cur := make([]int, len(b)+1)
		for j := range b {
			if a[i] == b[j] {
				cur[j+1] = prev[j] + 1
			} else {
				cur[j+1] = max(cur[j], prev[j+1])
			}
		}
		prev = cur
	}
	return prev[len(b)]
}

// checkDiff verifies that the diff rebuilds both sides with correct line numbers, and
// returns the number of changed lines.
func checkDiff(t *testing.T, a, b []string, d []diffLine) int {
	t.Helper()
	var ra, rb []string
	changes := 0
	for _, l := range d {
		if l.op != '+' {
			if l.oldNo != len(ra)+1 {
				t.Fatalf("old number %d at old line %d", l.oldNo, len(ra)+1)
			}
			ra = append(ra, l.text)
		}
		if l.op != '-' {
			if l.newNo != len(rb)+1 {
				t.Fatalf("new number %d at new line %d", l.newNo, len(rb)+1)
			}
			rb = append(rb, l.text)
		}
		if l.op != ' ' {
			changes++
		}
	}
	if strings.Join(ra, "") != strings.Join(a, "") || strings.Join(rb, "") != strings.Join(b, "") {
		t.Fatalf("diff does not rebuild its inputs:\na %q\nb %q\ngot %q / %q", a, b, ra, rb)
	}
	return changes
}

func TestLineDiff_MinimalAndCorrect(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	gen := func() []string {
		n := rng.IntN(12)
		out := make([]string, n)
		for i := range out {
			out[i] = string(rune('a'+rng.IntN(3))) + "\n"
		}
		return out
	}
	for range 3000 {
		a, b := gen(), gen()
		changes := checkDiff(t, a, b, lineDiff(a, b))
		if want := len(a) + len(b) - 2*lcs(a, b); changes != want {
			t.Fatalf("%q → %q: %d changed lines, the minimum is %d", a, b, changes, want)
		}
	}
}

func TestLineDiff_FallbackPastLimits(t *testing.T) {
	const n = 6000 // all lines differ: the edit distance 12000 is past diffMaxD
	a := make([]string, n)
	b := make([]string, n)
	for i := range a {
		a[i] = "old " + strings.Repeat("x", i%7) + string(rune('A'+i%26)) + "\n"
		b[i] = "new " + string(rune('A'+i%26)) + "\n"
	}
	start := time.Now()
	d := lineDiff(a, b)
	if el := time.Since(start); el > 5*time.Second {
		t.Fatalf("took %v", el)
	}
	checkDiff(t, a, b, d)
}

func TestDiffStats(t *testing.T) {
	d := lineDiff(splitLines("a\nb\nc\n"), splitLines("a\nc\nd\ne\n"))
	if a, del, first := diffStats(d); a != 2 || del != 1 || first != 2 {
		t.Fatalf("+%d -%d first %d", a, del, first)
	}
	if _, _, first := diffStats(lineDiff(splitLines("a\n"), splitLines("a\n"))); first != 0 {
		t.Fatalf("no change, first %d", first)
	}
}

// TestLineDiff_ManyScatteredChangesStayLocal: 200 one-line changes spread over 50,000
// lines (edit distance 400, well within diffMaxD) give 200 deletions and 200 insertions,
// not one replaced block. (go-udiff stops its search at an edit distance of about 100
// and shows the middle of such a file as replaced; docs/tools.md.)
func TestLineDiff_ManyScatteredChangesStayLocal(t *testing.T) {
	a := genCode(50_000, "\tvalue%05d := compute(%d) // line %d\n")
	b := scatter(a, 200)
	d := lineDiff(a, b)
	if changes := checkDiff(t, a, b, d); changes != 400 {
		t.Fatalf("%d changed lines, want 400", changes)
	}
	if got := strings.Count(unified("a/f", "b/f", d, false), "\n"); got != 2+200*(1+3+2+3) {
		t.Fatalf("the unified diff has %d lines", got)
	}
}
