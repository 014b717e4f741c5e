package search

import (
	"regexp/syntax"
)

// byteSet is a set of bytes.
type byteSet [4]uint64

func (s *byteSet) add(b byte)      { s[b>>6] |= 1 << (b & 63) }
func (s *byteSet) has(b byte) bool { return s[b>>6]&(1<<(b&63)) != 0 }
func (s *byteSet) members() (bs []byte) {
	for i := range 256 {
		if s.has(byte(i)) {
			bs = append(bs, byte(i))
		}
	}
	return bs
}

// window is a run of bytes at fixed offsets every match holds, each from a set: for
// [0-9]{4}-[0-9]{2} the ten sets digit, digit, digit, digit, -, digit, digit. It is found
// through its rarest position (one or two bytes, searched with IndexByte) and checked
// whole before the regex runs; for patterns with no literal, or a single-byte one, it
// turns most candidate lines away.
type window struct {
	sets   []byteSet
	k      int    // the anchor's offset in the window
	anchor []byte // its one or two bytes; nil: scan for the set of position k
	pure   bool   // the window is the whole pattern: a line holding it matches
}

// minScanRun is the shortest window worth a byte-by-byte scan when no position of it
// has one or two bytes to look for with IndexByte.
const minScanRun = 3

// elemSet returns the set of the single byte re matches, when it matches exactly one
// ASCII byte (a line break is left out: lines hold none).
func elemSet(re *syntax.Regexp) (byteSet, bool) {
	var s byteSet
	switch re.Op {
	case syntax.OpLiteral:
		if len(re.Rune) != 1 {
			return s, false
		}
		r := re.Rune[0]
		if r >= 0x80 {
			return s, false
		}
		s.add(byte(r))
		if re.Flags&syntax.FoldCase != 0 {
			if !foldSafe(r) {
				return s, false
			}
			s.add(lower(byte(r)))
			s.add(upper(byte(r)))
		}
	case syntax.OpCharClass:
		for i := 0; i+1 < len(re.Rune); i += 2 {
			lo, hi := re.Rune[i], re.Rune[i+1]
			if hi >= 0x80 {
				return s, false
			}
			for r := lo; r <= hi; r++ {
				if r != '\n' {
					s.add(byte(r))
				}
			}
		}
	default:
		return s, false
	}
	return s, true
}

// findWindow returns the best window of re (a simplified tree), or nil.
func findWindow(re *syntax.Regexp) *window {
	var runs [][]byteSet
	var cur []byteSet
	exact := true // re is nothing but one run
	flush := func() {
		if len(cur) > 0 {
			runs = append(runs, cur)
		}
		cur = nil
	}
	var walk func(re *syntax.Regexp)
	walk = func(re *syntax.Regexp) {
		switch re.Op {
		case syntax.OpCapture:
			walk(re.Sub[0])
			return
		case syntax.OpConcat:
			for _, sub := range re.Sub {
				walk(sub)
			}
			return
		case syntax.OpLiteral:
			if len(re.Rune) > 1 {
				for _, r := range re.Rune {
					walk(&syntax.Regexp{Op: syntax.OpLiteral, Flags: re.Flags, Rune: []rune{r}})
				}
				return
			}
		case syntax.OpEmptyMatch:
			return
		case syntax.OpBeginLine, syntax.OpEndLine, syntax.OpBeginText, syntax.OpEndText,
			syntax.OpWordBoundary, syntax.OpNoWordBoundary:
			exact = false // consumes nothing: the bytes around stay adjacent
			return
		case syntax.OpPlus:
			exact = false
			if s, ok := elemSet(re.Sub[0]); ok { // x+: an x ends this run and starts the next
				cur = append(cur, s)
				flush()
				cur = append(cur, s)
				return
			}
			flush()
			return
		}
		if s, ok := elemSet(re); ok {
			cur = append(cur, s)
			return
		}
		exact = false
		flush()
	}
	walk(re)
	flush()
	exact = exact && len(runs) == 1
	var best *window
	for _, r := range runs {
		k, n := -1, 257
		for i := range r {
			m := len(r[i].members())
			if m == 0 {
				continue
			}
			if m < n || (m == n && m == 1 && rank(r[i].members()[0]) > rank(r[k].members()[0])) {
				k, n = i, m
			}
		}
		if k < 0 || (n > 2 && len(r) < minScanRun) {
			continue
		}
		w := &window{sets: r, k: k, pure: exact}
		if n <= 2 {
			w.anchor = r[k].members()
		}
		// A window with an anchor beats one to scan for; then the longer wins.
		if best == nil || (w.anchor != nil) != (best.anchor != nil) && w.anchor != nil ||
			(w.anchor != nil) == (best.anchor != nil) && len(r) > len(best.sets) {
			best = w
		}
	}
	return best
}

// index returns the start of the first occurrence of the window at or after from, or -1.
func (w *window) index(data []byte, from int) int {
	n := len(w.sets)
	if w.anchor == nil {
		return w.scan(data, from)
	}
	n1, n2 := -2, -2
	for pos := from + w.k; pos <= len(data)-n+w.k; {
		n1 = nextByte(data, n1, pos, w.anchor[0])
		c := n1
		if len(w.anchor) > 1 {
			n2 = nextByte(data, n2, pos, w.anchor[1])
			if c < 0 || (n2 >= 0 && n2 < c) {
				c = n2
			}
		}
		if c < 0 {
			return -1
		}
		start := c - w.k
		if start >= 0 && start+n <= len(data) && w.at(data[start:start+n]) {
			return start
		}
		pos = c + 1
	}
	return -1
}

func (w *window) at(b []byte) bool {
	for i := range w.sets {
		if !w.sets[i].has(b[i]) {
			return false
		}
	}
	return true
}

// eachWindow is each for a matcher with a window.
func (s *lineScanner) eachWindow(data []byte, fn func(start, end int) bool) {
	w := s.m.win
	for pos := 0; pos < len(data); {
		i := w.index(data, pos)
		if i < 0 {
			return
		}
		start, end := lineAround(data, i)
		if (w.pure || s.m.re.Match(data[start:end])) && !fn(start, end) {
			return
		}
		pos = end + 1
	}
}

// scan is index for a window without an anchor: a byte-by-byte look for the set of
// position k (the smallest), each hit checked against the whole window.
func (w *window) scan(data []byte, from int) int {
	n, k := len(w.sets), w.k
	set := &w.sets[k]
	for c := from + k; c <= len(data)-n+k; c++ {
		if set.has(data[c]) {
			if start := c - k; w.at(data[start : start+n]) {
				return start
			}
		}
	}
	return -1
}
