package search

import "bytes"

// litFinder finds one literal in a buffer, exactly or ignoring ASCII case.
type litFinder struct {
	needle []byte
	fold   bool
	// For folded search: the offset of the needle's rarest byte and its two cases; the
	// next known position of each case (-2 unknown, -1 none left).
	k      int
	b1, b2 byte
	n1, n2 int
	data   []byte
}

func newLitFinder(l lit) *litFinder {
	f := &litFinder{needle: []byte(l.s), fold: l.fold}
	if f.fold {
		best := 0
		for i := range f.needle {
			if rank(f.needle[i]) > rank(f.needle[best]) {
				best = i
			}
		}
		f.k = best
		f.b1, f.b2 = f.needle[best], upper(f.needle[best])
	}
	return f
}

func (f *litFinder) reset(data []byte) {
	f.data = data
	f.n1, f.n2 = -2, -2
}

// index returns the first position at or after from where the literal starts, or -1.
func (f *litFinder) index(from int) int {
	if !f.fold {
		i := bytes.Index(f.data[from:], f.needle)
		if i < 0 {
			return -1
		}
		return from + i
	}
	n := len(f.needle)
	for pos := from + f.k; pos <= len(f.data)-n+f.k; {
		f.n1 = nextByte(f.data, f.n1, pos, f.b1)
		c := f.n1
		if f.b2 != f.b1 {
			f.n2 = nextByte(f.data, f.n2, pos, f.b2)
			if c < 0 || (f.n2 >= 0 && f.n2 < c) {
				c = f.n2
			}
		}
		if c < 0 {
			return -1
		}
		start := c - f.k
		if start+n <= len(f.data) && equalFold(f.data[start:start+n], f.needle) {
			return start
		}
		pos = c + 1
	}
	return -1
}

// nextByte updates the memo of b's next position at or after pos.
func nextByte(data []byte, memo, pos int, b byte) int {
	if memo == -1 || memo >= pos {
		return memo
	}
	i := bytes.IndexByte(data[pos:], b)
	if i < 0 {
		return -1
	}
	return pos + i
}

// equalFold compares s with the lower-case needle ignoring ASCII case.
func equalFold(s, needle []byte) bool {
	for i, c := range needle {
		if lower(s[i]) != c {
			return false
		}
	}
	return true
}

func upper(b byte) byte {
	if 'a' <= b && b <= 'z' {
		return b - 'a' + 'A'
	}
	return b
}

// byFrequency lists bytes from the most to the least frequent in source code, roughly;
// bytes not listed are rarer still.
const byFrequency = " etaoinsrlcdhupmf\n\t.(),_;=\"gbyw:{}/vkx*-'ETSRAIONLCD0123456789[]#<>$&!+|%?@PMFBUHGWVYKXJQZjqz\\^`~"

var freqRank = func() (r [256]int) {
	for i := range r {
		r[i] = len(byFrequency) + 1
	}
	for i := len(byFrequency) - 1; i >= 0; i-- {
		r[byFrequency[i]] = i
	}
	return r
}()

// rank is how common b is, both cases together (lower is more common).
func rank(b byte) int { return min(freqRank[b], freqRank[upper(b)]) }

// multiFinder finds the first of several literals.
type multiFinder struct {
	fs   []*litFinder
	next []int // next known start of each literal (-2 unknown, -1 none left)
}

func (m *multiFinder) reset(data []byte) {
	for i, f := range m.fs {
		f.reset(data)
		m.next[i] = -2
	}
}

func (m *multiFinder) index(from int) int {
	if len(m.fs) == 1 {
		return m.fs[0].index(from)
	}
	best := -1
	for i, f := range m.fs {
		if m.next[i] != -1 && m.next[i] < from {
			m.next[i] = f.index(from)
		}
		if n := m.next[i]; n >= 0 && (best < 0 || n < best) {
			best = n
		}
	}
	return best
}
