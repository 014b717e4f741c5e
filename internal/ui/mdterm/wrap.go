package mdterm

import (
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/charmbracelet/x/ansi"
)

// frag is a piece of inline text in one style, or a hard line break.
type frag struct {
	text string
	st   style
	brk  bool
}

// piece is a part of a word in one style, with its display width.
type piece struct {
	text string
	st   style
	w    int
}

// word is a run of text that is not broken across lines unless it is wider
// than a line: the pieces p0 to p1 of a shared slice. sp says a space comes
// before it; brk marks a hard line break.
type word struct {
	p0, p1 int
	w      int
	sp     bool
	brk    bool
}

// words splits inline text into words at spaces, and around Chinese and
// Japanese characters, between which lines may break without a space.
func words(frags []frag) ([]word, []piece) {
	n := len(frags)
	for _, f := range frags {
		n += strings.Count(f.text, " ")
	}
	var (
		out    = make([]word, 0, n+1)
		pieces = make([]piece, 0, n+1)
		cur    word
		space  bool
		cjk    bool // cur ends with a CJK character
	)
	flush := func() {
		if cur.p1 > cur.p0 {
			out = append(out, cur)
		}
		cur = word{p0: len(pieces), p1: len(pieces)}
		cjk = false
	}
	add := func(s string, st style, w int) {
		if cur.p1 == cur.p0 {
			cur.sp, space = space, false
		}
		pieces = append(pieces, piece{s, st, w})
		cur.p1 = len(pieces)
		cur.w += w
	}
	for _, f := range frags {
		if f.brk {
			flush()
			out = append(out, word{brk: true})
			space = false
			continue
		}
		t := f.text
		for len(t) > 0 {
			if t[0] == ' ' {
				flush()
				space = true
				t = t[1:]
				continue
			}
			j := strings.IndexByte(t, ' ')
			if j < 0 {
				j = len(t)
			}
			seg := t[:j]
			t = t[j:]
			if ascii(seg) {
				if cjk && !unicode.IsPunct(rune(seg[0])) {
					flush()
				}
				add(seg, f.st, len(seg))
				cjk = false
				continue
			}
			start, w := 0, 0 // a run of graphemes not split
			for i := 0; i < len(seg); {
				g, gw := ansi.FirstGraphemeCluster(seg[i:], ansi.GraphemeWidth)
				if g == "" {
					break
				}
				r, _ := utf8.DecodeRuneInString(g)
				if c := isCJK(r); c || (cjk && !unicode.IsPunct(r)) {
					if i > start {
						add(seg[start:i], f.st, w)
					}
					flush()
					start, w = i, 0
					if c {
						add(g, f.st, gw)
						cjk = true
						i += len(g)
						start = i
						continue
					}
				}
				w += gw
				i += len(g)
			}
			if start < len(seg) {
				add(seg[start:], f.st, w)
				if w > 0 {
					cjk = false
				}
			}
		}
	}
	flush()
	return out, pieces
}

func ascii(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] >= utf8.RuneSelf {
			return false
		}
	}
	return true
}

// wrap breaks inline text into lines of at most width columns (at least 2);
// a word wider than a line is broken between graphemes.
func wrap(frags []frag, width int, color bool) []string {
	return wrapHang(frags, width, width, color)
}

// wrapHang is wrap with the lines after the first rest columns wide.
func wrapHang(frags []frag, first, rest int, color bool) []string {
	width := max(first, 2)
	var lines []string
	lb := lineBuilder{color: color}
	newline := func() {
		lines = append(lines, lb.done())
		width = max(rest, 2)
	}
	ws, pieces := words(frags)
	for _, w := range ws {
		if w.brk {
			newline()
			continue
		}
		parts := pieces[w.p0:w.p1]
		space := w.sp && lb.w > 0
		sw := 0
		if space {
			sw = 1
		}
		switch {
		case lb.w+sw+w.w <= width:
			if space {
				lb.space(parts[0].st)
			}
			lb.addWord(parts)
		case w.w <= max(rest, 2) && lb.w > 0:
			newline()
			lb.addWord(parts)
		default:
			if lb.w > 0 && width-lb.w-sw < 4 {
				newline()
			} else if space {
				lb.space(parts[0].st)
			}
			for _, p := range parts {
				lb.addBroken(p, &width, newline)
			}
		}
	}
	if lb.w > 0 {
		lines = append(lines, lb.done())
	}
	return lines
}

// lineBuilder builds one line of styled text.
type lineBuilder struct {
	b     strings.Builder
	cur   style
	w     int
	color bool
}

func (lb *lineBuilder) add(s string, st style, w int) {
	if lb.b.Cap() == 0 {
		lb.b.Grow(128)
	}
	if lb.color && st != lb.cur {
		if lb.cur != 0 {
			_, suf := codes(lb.cur)
			lb.b.WriteString(suf)
		}
		if st != 0 {
			pre, _ := codes(st)
			lb.b.WriteString(pre)
		}
		lb.cur = st
	}
	lb.b.WriteString(s)
	lb.w += w
}

// space adds a space before a word starting in style next; it takes the
// current style if the word continues it (an underline goes on under it).
func (lb *lineBuilder) space(next style) {
	if next == lb.cur {
		lb.add(" ", next, 1)
	} else {
		lb.add(" ", 0, 1)
	}
}

func (lb *lineBuilder) addWord(parts []piece) {
	for _, p := range parts {
		lb.add(p.text, p.st, p.w)
	}
}

// addBroken adds p, breaking lines between its graphemes where it does not
// fit; newline ends a line (and may change the width).
func (lb *lineBuilder) addBroken(p piece, widthp *int, newline func()) {
	s := p.text
	for len(s) > 0 {
		// Take as many graphemes as fit.
		n, w := 0, 0
		for n < len(s) {
			var g string
			var gw int
			if s[n] < utf8.RuneSelf {
				g, gw = s[n:n+1], 1
			} else {
				g, gw = ansi.FirstGraphemeCluster(s[n:], ansi.GraphemeWidth)
				if g == "" {
					g = s[n:]
				}
			}
			if lb.w+w+gw > *widthp && (lb.w > 0 || n > 0) {
				break
			}
			n += len(g)
			w += gw
		}
		if n > 0 {
			lb.add(s[:n], p.st, w)
			s = s[n:]
		}
		if len(s) > 0 {
			newline()
		}
	}
}

// done returns the line and starts a new one.
func (lb *lineBuilder) done() string {
	if lb.color && lb.cur != 0 {
		_, suf := codes(lb.cur)
		lb.b.WriteString(suf)
	}
	s := lb.b.String()
	lb.b.Reset()
	lb.cur, lb.w = 0, 0
	return s
}
