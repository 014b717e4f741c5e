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
	lines int    // content mode: the number of rendered lines
}

// scanFile searches data (a whole file) and returns false when nothing matched or the
// file is binary.
func (g *grepper) scanFile(sc *lineScanner, path string, data []byte) (fileResult, bool) {
	r := fileResult{path: path}
	switch g.mode {
	case modeFiles:
		sc.each(data, func(int, int) bool { r.count = 1; return false })
	case modeCount:
		sc.each(data, func(int, int) bool { r.count++; return true })
	case modeContent:
		g.render(sc, &r, data)
	}
	// A file with a NUL byte is binary and skipped, as ripgrep does for the files it
	// walks; only files with a match need the check.
	if r.count == 0 || isBinary(data) {
		return fileResult{}, false
	}
	return r, true
}

// isBinary tells binary files the way ripgrep does for the files it walks: a NUL byte.
func isBinary(data []byte) bool {
	return bytes.IndexByte(data, 0) >= 0
}

// render writes the matching lines of data with their context, as rg -n does:
// path:line:text for a match, path-line-text for context, -- between groups.
func (g *grepper) render(sc *lineScanner, r *fileResult, data []byte) {
	c := g.context
	countPos, countLine := 0, 1 // line number of the line starting at countPos
	printed, printedEnd := 0, 0 // last printed line number and the offset after it
	after := 0                  // print context lines up to this line number
	line := func(num, start, end int, sep byte) {
		if printed > 0 && num > printed+1 && c > 0 {
			r.out = append(r.out, "--\n"...)
			r.lines++
		}
		r.out = append(r.out, r.path...)
		r.out = append(r.out, sep)
		r.out = strconv.AppendInt(r.out, int64(num), 10)
		r.out = append(r.out, sep)
		r.out = g.appendText(r.out, data[start:end])
		r.out = append(r.out, '\n')
		r.lines++
		printed, printedEnd = num, min(end+1, len(data))
	}
	// flushAfter prints the context lines after the last match up to line upTo.
	flushAfter := func(upTo int) {
		for printed < after && printed < upTo && printedEnd < len(data) {
			end := bytes.IndexByte(data[printedEnd:], '\n')
			if end < 0 {
				end = len(data)
			} else {
				end += printedEnd
			}
			line(printed+1, printedEnd, end, '-')
		}
	}
	sc.each(data, func(start, end int) bool {
		num := countLine + bytes.Count(data[countPos:start], []byte{'\n'})
		countPos, countLine = start, num
		r.count++
		if c > 0 {
			flushAfter(num - 1)
			// context before: the lines above not printed yet
			first, s := num, start
			for first > 1 && first > num-c && first-1 > printed {
				s = bytes.LastIndexByte(data[:s-1], '\n') + 1
				first--
			}
			for n := first; n < num; n++ {
				e := s + bytes.IndexByte(data[s:], '\n')
				line(n, s, e, '-')
				s = e + 1
			}
		}
		line(num, start, end, ':')
		after = num + c
		return true
	})
	if c > 0 {
		flushAfter(after)
	}
}

// appendText appends a line for display: a trailing \r dropped, and a line longer than
// maxLineLen cut around its first match with a marker.
func (g *grepper) appendText(dst, text []byte) []byte {
	text = bytes.TrimSuffix(text, []byte{'\r'})
	if len(text) <= maxLineLen {
		return append(dst, text...)
	}
	from := 0
	if loc := g.m.re.FindIndex(text); loc != nil && loc[1] > maxLineLen {
		from = max(0, loc[0]-maxLineLen/5)
		for from > 0 && !utf8.RuneStart(text[from]) {
			from--
		}
	}
	to := min(len(text), from+maxLineLen)
	for to < len(text) && !utf8.RuneStart(text[to]) {
		to--
	}
	if from > 0 {
		dst = append(dst, "[… "...)
		dst = strconv.AppendInt(dst, int64(from), 10)
		dst = append(dst, " characters cut] "...)
	}
	dst = append(dst, text[from:to]...)
	if to < len(text) {
		dst = append(dst, " [… "...)
		dst = strconv.AppendInt(dst, int64(len(text)-to), 10)
		dst = append(dst, " more characters cut]"...)
	}
	return dst
}
