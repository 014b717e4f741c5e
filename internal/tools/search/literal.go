package search

import (
	"regexp/syntax"
	"strings"
	"unicode/utf8"
)

// lit is a literal every match contains.
type lit struct {
	s    string
	fold bool // matched ignoring ASCII case (s is lower case)
}

// maxLits bounds the alternatives searched for at once.
const maxLits = 16

// requiredLits returns a set of literals one of which occurs in every match of re, or
// nil when none can be told (the caller then runs the regex on every line).
func requiredLits(re *syntax.Regexp) []lit {
	switch re.Op {
	case syntax.OpLiteral:
		if l, ok := literalOf(re); ok {
			return []lit{l}
		}
	case syntax.OpCapture, syntax.OpPlus:
		return requiredLits(re.Sub[0])
	case syntax.OpRepeat:
		if re.Min >= 1 {
			return requiredLits(re.Sub[0])
		}
	case syntax.OpConcat:
		var best []lit
		for _, sub := range re.Sub {
			if s := requiredLits(sub); s != nil && (best == nil || score(s) > score(best)) {
				best = s
			}
		}
		return best
	case syntax.OpAlternate:
		var all []lit
		for _, sub := range re.Sub {
			s := requiredLits(sub)
			if s == nil {
				return nil
			}
			all = append(all, s...)
			if len(all) > maxLits {
				return nil
			}
		}
		return all
	}
	return nil
}

// score rates a set: the shortest literal counts, and fewer alternatives are better.
func score(s []lit) int {
	m := len(s[0].s)
	for _, l := range s[1:] {
		m = min(m, len(l.s))
	}
	return m*maxLits - len(s)
}

// literalOf returns the searchable literal of an OpLiteral. A case-folded literal is
// searched ASCII-folded, so only its longest run of ASCII characters whose folds are all
// ASCII (not k, s) is kept; a run is still required.
func literalOf(re *syntax.Regexp) (lit, bool) {
	if re.Flags&syntax.FoldCase == 0 {
		return lit{s: string(re.Rune)}, true
	}
	best, cur := "", strings.Builder{}
	flush := func() {
		if cur.Len() > len(best) {
			best = cur.String()
		}
		cur.Reset()
	}
	for _, r := range re.Rune {
		if !foldSafe(r) {
			flush()
			continue
		}
		cur.WriteByte(lower(byte(r)))
	}
	flush()
	return lit{s: best, fold: true}, best != ""
}

// foldSafe reports whether r folds to ASCII characters only.
func foldSafe(r rune) bool {
	if r >= utf8.RuneSelf {
		return false
	}
	switch r {
	case 'k', 'K', 's', 'S':
		return false
	}
	return true
}

func lower(b byte) byte {
	if 'A' <= b && b <= 'Z' {
		return b + 'a' - 'A'
	}
	return b
}

// pureLiteral reports whether re is nothing but the literal l, so that a line holding l
// matches without running the regex.
func pureLiteral(re *syntax.Regexp, l lit) bool {
	for re.Op == syntax.OpCapture {
		re = re.Sub[0]
	}
	if re.Op != syntax.OpLiteral {
		return false
	}
	if re.Flags&syntax.FoldCase == 0 {
		return !l.fold && string(re.Rune) == l.s
	}
	return l.fold && len(re.Rune) == len(l.s) && strings.EqualFold(string(re.Rune), l.s)
}

// hasNewline reports whether re needs a line break, which a line never holds.
func hasNewline(re *syntax.Regexp) bool {
	if re.Op == syntax.OpLiteral {
		for _, r := range re.Rune {
			if r == '\n' {
				return true
			}
		}
	}
	for _, s := range re.Sub {
		if hasNewline(s) {
			return true
		}
	}
	return false
}
