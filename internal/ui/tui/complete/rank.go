package complete

import (
	"cmp"
	"slices"
	"strings"
)

// Tiers of a match, best first.
const (
	tierPrefix = iota // the text starts with what was typed
	tierBase          // a file's base name does
	tierFuzzy         // the typed characters occur in order
)

type ranked struct {
	c     Candidate
	key   string // what was matched
	tier  int
	score int // of a fuzzy match
}

// rank scores key against the typed prefix (lower-cased in low) and appends the match
// to out; base, when not "", is also tried as a prefix.
func rank(out []ranked, m *matcher, low string, c Candidate, key, base string) []ranked {
	r := ranked{c: c, key: key}
	switch lk := strings.ToLower(key); {
	case strings.HasPrefix(lk, low):
		r.tier = tierPrefix
	case base != "" && strings.HasPrefix(strings.ToLower(base), low):
		r.tier = tierBase
	default:
		s, ok := m.fuzzy(key)
		if !ok {
			return out
		}
		r.tier, r.score = tierFuzzy, s
	}
	return append(out, r)
}

// sortRanked orders matches by tier, then fuzzy score, then (when shorter) by the
// length of the key, then by key.
func sortRanked(rs []ranked, shorter bool) {
	slices.SortFunc(rs, func(a, b ranked) int {
		if c := cmp.Compare(a.tier, b.tier); c != 0 {
			return c
		}
		if c := cmp.Compare(b.score, a.score); c != 0 {
			return c
		}
		if shorter {
			if c := cmp.Compare(len(a.key), len(b.key)); c != 0 {
				return c
			}
		}
		return strings.Compare(a.key, b.key)
	})
}

func candidates(rs []ranked, limit int) []Candidate {
	if limit > 0 && len(rs) > limit {
		rs = rs[:limit]
	}
	out := make([]Candidate, len(rs))
	for i, r := range rs {
		out[i] = r.c
	}
	return out
}
