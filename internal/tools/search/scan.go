package search

import (
	"bytes"
	"strconv"
	"unicode/utf8"
)

type outputMode int

const (
	modeFiles outputMode = iota
	modeContent
	modeCount
)

// maxLineLen is where a displayed line is cut.
const maxLineLen = 500

// fileResult is what one file yields.
type fileResult struct {
	path  string // as displayed
	count int    // matching lines (1 in files mode: the search stops at the first)
	out   []byte // content mode: the rendered lines
}

// counter counts the matching lines of a file; with first, it stops at the first.
type counter struct {
	sc    *lineScanner
	n     int
	first bool
}

func (c *counter) lines(data []byte, _ int64) bool {
	c.sc.each(data, func(int, int) bool { c.n++; return !c.first })
	return !c.first || c.n == 0
}

func (c *counter) long(l *longLine) bool {
	if l.matches() {
		c.n++
	}
	return !c.first || c.n == 0
}

// firstMatch finds the file offset of the first match.
type firstMatch struct {
	sc *lineScanner
	at int64 // -1 until found
}

func (f *firstMatch) lines(data []byte, off int64) bool {
	f.sc.each(data, func(start, end int) bool {
		f.at = off + int64(start)
		if loc := f.sc.m.re.FindIndex(data[start:end]); loc != nil {
			f.at += int64(loc[0])
		}
		return false
	})
	return f.at < 0
}

func (f *firstMatch) long(l *longLine) bool {
	if loc := l.find(l.n); loc != nil {
		f.at = l.off + loc[0]
	}
	return f.at < 0
}

// renderer writes the matching lines of a file with their context, as rg -n does:
// path:line:text for a match, path-line-text for context, -- between groups. It hears
// the file a chunk at a time: the last lines of a chunk are kept, as shown, in case the
// next chunk's first match needs them as context. Once the output passes limit, the rest
// is only counted: the collector never shows more.
type renderer struct {
	g       *grepper
	sc      *lineScanner
	r       *fileResult
	limit   int
	full    bool      // the output has passed limit
	base    int       // the number of the next line heard
	printed int       // the last line printed, 0 for none
	after   int       // context lines are printed up to this line
	ring    []ctxLine // the last lines before the current chunk, at most context, oldest first
}

// ctxLine is a line kept for context, rendered.
type ctxLine struct {
	num  int
	text []byte
}

func (rd *renderer) reset(g *grepper, sc *lineScanner, r *fileResult, limit int) {
	rd.g, rd.sc, rd.r, rd.limit = g, sc, r, limit
	rd.full, rd.base, rd.printed, rd.after = false, 1, 0, 0
	rd.ring = rd.ring[:0]
}

// head starts the output line num (sep is : for a match, - for context); false once the
// output is full.
func (rd *renderer) head(num int, sep byte) bool {
	r := rd.r
	if len(r.out) >= rd.limit {
		rd.full = true
		return false
	}
	if rd.printed > 0 && num > rd.printed+1 && rd.g.context > 0 {
		r.out = append(r.out, "--\n"...)
	}
	r.out = append(r.out, r.path...)
	r.out = append(r.out, sep)
	r.out = strconv.AppendInt(r.out, int64(num), 10)
	r.out = append(r.out, sep)
	return true
}

// fromRing prints the kept lines from lo up to the current chunk.
func (rd *renderer) fromRing(lo int) {
	for _, l := range rd.ring {
		if l.num >= lo && l.num > rd.printed && rd.head(l.num, '-') {
			rd.r.out = append(rd.r.out, l.text...)
			rd.r.out = append(rd.r.out, '\n')
			rd.printed = l.num
		}
	}
}

// keep adds line num to the ring, rendered by fill; a full ring drops its oldest line
// (whose buffer the new one reuses).
func (rd *renderer) keep(num int, fill func(dst []byte) []byte) {
	var text []byte
	switch n := len(rd.ring); {
	case n == rd.g.context:
		text = rd.ring[0].text[:0]
		copy(rd.ring, rd.ring[1:])
		rd.ring = rd.ring[:n-1]
	case n < cap(rd.ring):
		text = rd.ring[:n+1][n].text[:0]
	}
	rd.ring = append(rd.ring, ctxLine{num: num, text: fill(text)})
}

func endsCR(b []byte) bool { return len(b) > 0 && b[len(b)-1] == '\r' }

func (rd *renderer) lines(data []byte, _ int64) bool {
	r, c := rd.r, rd.g.context
	countPos, countLine := 0, rd.base // line number of the line starting at countPos
	printedEnd := 0                   // the offset after the last line printed in data
	line := func(num, start, end int, sep byte) {
		if !rd.head(num, sep) {
			return
		}
		text := data[start:end]
		// a context line does not match: only once its \r is dropped may it
		r.out = rd.g.appendText(r.out, text, sep == ':' || endsCR(text))
		r.out = append(r.out, '\n')
		rd.printed, printedEnd = num, min(end+1, len(data))
	}
	// flushAfter prints the context lines after the last match up to line upTo; a
	// line still due is the next one of data (rd.printed is the last line before it
	// or a line of it).
	flushAfter := func(upTo int) {
		for rd.printed < rd.after && rd.printed < upTo && printedEnd < len(data) && !rd.full {
			end := bytes.IndexByte(data[printedEnd:], '\n')
			if end < 0 {
				end = len(data)
			} else {
				end += printedEnd
			}
			line(rd.printed+1, printedEnd, end, '-')
		}
	}
	rd.sc.each(data, func(start, end int) bool {
		num := countLine + bytes.Count(data[countPos:start], []byte{'\n'})
		countPos, countLine = start, num
		r.count++
		if rd.full {
			return true
		}
		if c > 0 {
			flushAfter(num - 1)
			// context before: the lines above not printed yet, the first ones perhaps
			// kept from the chunks before
			lo := max(1, num-c, rd.printed+1)
			if lo < rd.base {
				rd.fromRing(lo)
			}
			first, s := max(lo, rd.base), start
			for n := first; n < num; n++ {
				s = bytes.LastIndexByte(data[:s-1], '\n') + 1
			}
			for n := first; n < num; n++ {
				e := s + bytes.IndexByte(data[s:], '\n')
				line(n, s, e, '-')
				s = e + 1
			}
		}
		line(num, start, end, ':')
		rd.after = num + c
		return true
	})
	last := countLine + bytes.Count(data[countPos:], []byte{'\n'}) // the line after data, if it ends with \n
	if c > 0 && !rd.full {
		flushAfter(rd.after)
		// keep the last lines not printed
		e, num := len(data), last-1
		if data[e-1] != '\n' {
			num++
		}
		var starts [maxContext]int
		k := 0
		for k < min(c, maxContext) && num-k > rd.printed {
			if e > 0 && data[e-1] == '\n' {
				e--
			}
			s := bytes.LastIndexByte(data[:e], '\n') + 1
			starts[k] = s
			k++
			if s == 0 {
				break
			}
			e = s
		}
		for i := k - 1; i >= 0; i-- {
			s := starts[i]
			e := bytes.IndexByte(data[s:], '\n')
			if e < 0 {
				e = len(data)
			} else {
				e += s
			}
			text := data[s:e]
			rd.keep(num-i, func(dst []byte) []byte { return rd.g.appendText(dst, text, endsCR(text)) })
		}
	}
	rd.base = last
	return true
}

// maxContext is the most context lines grep shows around a match.
const maxContext = 100

func (rd *renderer) long(l *longLine) bool {
	num, c := rd.base, rd.g.context
	rd.base++
	show := l.n // the shown part of the line: without its \r
	if l.cr {
		show--
	}
	var loc []int64
	match := false
	if !l.cr {
		loc = l.find(l.n)
		match = loc != nil
	} else if match = l.matches(); match || c > 0 {
		loc = l.find(show)
	}
	if match {
		rd.r.count++
	}
	if rd.full {
		return true
	}
	fill := func(dst []byte) []byte { return rd.g.appendLong(dst, l, show, loc) }
	switch {
	case match:
		if c > 0 {
			rd.fromRing(max(1, num-c, rd.printed+1))
		}
		if rd.head(num, ':') {
			rd.r.out = append(fill(rd.r.out), '\n')
			rd.printed = num
		}
		rd.after = num + c
	case rd.printed < rd.after && rd.printed == num-1:
		if rd.head(num, '-') {
			rd.r.out = append(fill(rd.r.out), '\n')
			rd.printed = num
		}
	}
	if c > 0 && rd.printed < num {
		rd.keep(num, fill)
	}
	return true
}

// appendText appends a line for display: a trailing \r dropped, and a line longer than
// maxLineLen cut around its first match with a marker. maybeMatch false says the line
// cannot match: no need to look for the match.
func (g *grepper) appendText(dst, text []byte, maybeMatch bool) []byte {
	text = bytes.TrimSuffix(text, []byte{'\r'})
	var loc []int
	if len(text) > maxLineLen && maybeMatch {
		loc = g.m.re.FindIndex(text)
	}
	return appendCut(dst, text, 0, len(text), loc)
}

// appendLong is appendText for a long line: its first n bytes are shown, loc is their
// first match, or nil; the part shown is read back alone.
func (g *grepper) appendLong(dst []byte, l *longLine, n int64, loc []int64) []byte {
	from := int64(0)
	if loc != nil && loc[1] > maxLineLen {
		from = max(0, loc[0]-maxLineLen/5)
	}
	// the bytes appendCut may look at: back to the start of a rune, and one past the end
	base := max(0, from-(utf8.UTFMax-1))
	win := l.text(base, min(n, from+maxLineLen+1))
	var iloc []int
	if loc != nil {
		iloc = []int{int(loc[0]), int(loc[1])}
	}
	return appendCut(dst, win, int(base), int(n), iloc)
}

// appendCut appends a line of n bytes for display, cut around loc, its first match (or
// nil), when longer than maxLineLen; win holds its bytes from base on, at least those
// shown and the one after.
func appendCut(dst, win []byte, base, n int, loc []int) []byte {
	if n <= maxLineLen {
		return append(dst, win[:n-base]...)
	}
	from := 0
	if loc != nil && loc[1] > maxLineLen {
		from = max(0, loc[0]-maxLineLen/5)
		for from > base && !utf8.RuneStart(win[from-base]) {
			from--
		}
	}
	to := min(n, from+maxLineLen)
	for to < n && to > from && to-base < len(win) && !utf8.RuneStart(win[to-base]) {
		to--
	}
	if from > 0 {
		dst = append(dst, "[… "...)
		dst = strconv.AppendInt(dst, int64(from), 10)
		dst = append(dst, " characters cut] "...)
	}
	dst = append(dst, win[from-base:min(to-base, len(win))]...)
	if to < n {
		dst = append(dst, " [… "...)
		dst = strconv.AppendInt(dst, int64(n-to), 10)
		dst = append(dst, " more characters cut]"...)
	}
	return dst
}
