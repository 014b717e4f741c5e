package complete

import (
	"math"
	"unicode"
)

// Scores of a fuzzy match: every matched character scores scoreMatch plus the bonus of
// its position, a character matched right after the previous one scores
// bonusConsecutive more, and every character skipped between two matches costs
// penaltyGap.
const (
	scoreMatch       = 16
	bonusStart       = 8  // the first character of the text
	bonusSlash       = 10 // after '/'
	bonusSeparator   = 8  // after '_', '-', '.' or a space
	bonusCamel       = 6  // an upper-case letter after a lower-case one
	bonusConsecutive = 10
	penaltyGap       = 1

	maxFuzzyPattern = 64 // longer patterns match only as prefixes
)

const none = math.MinInt / 2 // no alignment

// matcher scores texts against one pattern; it reuses its buffers between texts.
type matcher struct {
	pat       []rune // lower-cased
	text, low []rune
	bonus     []int
	prev, cur []int
}

func newMatcher(pattern string) *matcher {
	m := &matcher{}
	for _, r := range pattern {
		m.pat = append(m.pat, unicode.ToLower(r))
	}
	return m
}

// fuzzy returns the score of the best alignment of the pattern as a subsequence of s,
// ignoring case, and whether there is one.
func (m *matcher) fuzzy(s string) (int, bool) {
	if len(m.pat) == 0 || len(m.pat) > maxFuzzyPattern {
		return 0, false
	}
	m.text, m.low = m.text[:0], m.low[:0]
	for _, r := range s {
		m.text = append(m.text, r)
		m.low = append(m.low, unicode.ToLower(r))
	}
	if !m.subsequence() {
		return 0, false
	}
	n := len(m.text)
	m.bonus = m.bonus[:0]
	for j := range n {
		m.bonus = append(m.bonus, positionBonus(m.text, j))
	}
	m.prev, m.cur = grow(m.prev, n), grow(m.cur, n)
	// prev[j]: best score with the previous pattern character matched at j.
	for j := range n {
		m.prev[j] = none
		if m.low[j] == m.pat[0] {
			m.prev[j] = scoreMatch + m.bonus[j]
		}
	}
	for _, p := range m.pat[1:] {
		gap := none // best of prev[j'] - penaltyGap*(j-1-j') over j' < j
		m.cur[0] = none
		for j := 1; j < n; j++ {
			gap = max(gap-penaltyGap, m.prev[j-1])
			m.cur[j] = none
			if m.low[j] != p || gap <= none {
				continue
			}
			from := gap
			if m.prev[j-1] != none {
				from = max(from, m.prev[j-1]+bonusConsecutive)
			}
			m.cur[j] = from + scoreMatch + m.bonus[j]
		}
		m.prev, m.cur = m.cur, m.prev
	}
	best := none
	for _, v := range m.prev[:n] {
		best = max(best, v)
	}
	return best, best > none
}

// subsequence reports whether the pattern occurs in order in the lower-cased text.
func (m *matcher) subsequence() bool {
	i := 0
	for _, r := range m.low {
		if r == m.pat[i] {
			if i++; i == len(m.pat) {
				return true
			}
		}
	}
	return false
}

func positionBonus(text []rune, j int) int {
	if j == 0 {
		return bonusStart
	}
	switch prev := text[j-1]; {
	case prev == '/':
		return bonusSlash
	case prev == '_' || prev == '-' || prev == '.' || prev == ' ':
		return bonusSeparator
	case unicode.IsLower(prev) && unicode.IsUpper(text[j]):
		return bonusCamel
	}
	return 0
}

func grow(s []int, n int) []int {
	if cap(s) < n {
		return make([]int, n)
	}
	return s[:n]
}
