package complete

import "testing"

func TestFuzzyScores(t *testing.T) {
	cases := []struct {
		pattern, better, worse string
	}{
		// Contiguous runs beat scattered letters.
		{"tool", "internal/tool.go", "t/o/o/l.go"},
		// A match after a separator beats one inside a word.
		{"ag", "internal/agent.go", "internal/bag.go"},
		{"ma", "cmd/gantry/main.go", "cmd/gamma.go"},
		{"tg", "test_grep.go", "testgrep.go"},
		{"fb", "fooBar.go", "foobar.go"},
		// Fewer characters skipped between matches win.
		{"ab", "xaxb", "xaxxxxb"},
	}
	for _, c := range cases {
		m := newMatcher(c.pattern)
		b, okb := m.fuzzy(c.better)
		w, okw := m.fuzzy(c.worse)
		if !okb || !okw || b <= w {
			t.Errorf("%q: %q scores %d (%v), %q scores %d (%v)", c.pattern, c.better, b, okb, c.worse, w, okw)
		}
	}
}

func TestFuzzyMatches(t *testing.T) {
	cases := []struct {
		pattern, text string
		ok            bool
	}{
		{"agtool", "internal/agent/tool.go", true},
		{"AGTOOL", "internal/agent/tool.go", true},
		{"élan", "Élan vital.md", true},
		{"ab", "ba", false},
		{"abc", "ab", false},
		{"", "anything", false},
		{"x", "", false},
	}
	for _, c := range cases {
		if _, ok := newMatcher(c.pattern).fuzzy(c.text); ok != c.ok {
			t.Errorf("fuzzy(%q, %q) = %v, want %v", c.pattern, c.text, ok, c.ok)
		}
	}
}

// The best alignment is found, not the first one: greedy matching would take the "a"
// of "internal" and miss the run in "agent/tool".
func TestFuzzyBestAlignment(t *testing.T) {
	m := newMatcher("agtool")
	got, _ := m.fuzzy("internal/agent/tool.go")
	// a, g after '/' as a run, "ent/" skipped, then t, o, o, l after '/' as a run.
	want := 6*scoreMatch + 2*bonusSlash + 4*bonusConsecutive - 4*penaltyGap
	if got != want {
		t.Fatalf("score %d, want %d", got, want)
	}
}
