// Package markdown recognises the code of Markdown text — fenced blocks and inline
// code spans — so that what scans text for @references and @imports leaves code alone.
package markdown

import "strings"

// FenceOf returns the run of backticks or tildes that opens a code fence on line (at
// most three spaces of indent, three or more of the same character), or "".
func FenceOf(line string) string {
	trimmed := strings.TrimLeft(line, " ")
	if len(line)-len(trimmed) > 3 || len(trimmed) < 3 {
		return ""
	}
	c := trimmed[0]
	if c != '`' && c != '~' {
		return ""
	}
	n := 0
	for n < len(trimmed) && trimmed[n] == c {
		n++
	}
	if n < 3 || (c == '`' && strings.ContainsRune(trimmed[n:], '`')) {
		return ""
	}
	return trimmed[:n]
}

// MaskInlineCode returns line with each inline code span (text between runs of
// backticks of equal length, the runs included) replaced by spaces of the same length,
// so indices into the result are indices into line. An unmatched run stays as text.
func MaskInlineCode(line string) string {
	b := []byte(line)
	for i := 0; i < len(b); {
		if b[i] != '`' {
			i++
			continue
		}
		n := i
		for n < len(b) && b[n] == '`' {
			n++
		}
		end := closingRun(line[n:], n-i)
		if end < 0 {
			i = n
			continue
		}
		stop := n + end + (n - i)
		for k := i; k < stop; k++ {
			b[k] = ' '
		}
		i = stop
	}
	return string(b)
}

// closingRun returns the index in s of the first run of exactly n backticks, or -1.
func closingRun(s string, n int) int {
	for i := 0; i < len(s); {
		if s[i] != '`' {
			i++
			continue
		}
		j := i
		for j < len(s) && s[j] == '`' {
			j++
		}
		if j-i == n {
			return i
		}
		i = j
	}
	return -1
}

// ProseLines calls fn with each line of text that is outside a fenced code block
// (the fences themselves included); inline code is the caller's (MaskInlineCode).
func ProseLines(text string, fn func(line string)) {
	fence := ""
	for _, line := range strings.Split(text, "\n") {
		if f := FenceOf(line); f != "" {
			switch {
			case fence == "":
				fence = f
			case strings.HasPrefix(f, fence) && strings.TrimSpace(strings.TrimLeft(strings.TrimSpace(line), f[:1])) == "":
				fence = "" // a closing fence: at least as long as the opening one, nothing after
			}
			continue
		}
		if fence == "" {
			fn(line)
		}
	}
}
