package fs

import "strings"

// seekSequence finds pattern in lines at or after start, as Codex's seek_sequence does:
// with decreasing strictness — exact, then ignoring trailing whitespace, then ignoring
// surrounding whitespace, then with Unicode punctuation folded to ASCII. eof asks for the
// match to end the file; it is tried first at the end, then anywhere. It returns the
// index of the first matching line, or -1.
func seekSequence(lines, pattern []string, start int, eof bool) int {
	if len(pattern) == 0 {
		return start
	}
	if len(pattern) > len(lines) {
		return -1
	}
	last := len(lines) - len(pattern)
	for _, norm := range lineNormalisers {
		if eof && last >= start && matchAt(lines, pattern, last, norm) {
			return last
		}
		for i := start; i <= last; i++ {
			if matchAt(lines, pattern, i, norm) {
				return i
			}
		}
	}
	return -1
}

func matchAt(lines, pattern []string, at int, norm func(string) string) bool {
	for j, p := range pattern {
		if norm(lines[at+j]) != norm(p) {
			return false
		}
	}
	return true
}

var lineNormalisers = []func(string) string{
	func(s string) string { return s },
	func(s string) string { return strings.TrimRight(s, " \t\r\v\f") },
	strings.TrimSpace,
	func(s string) string { return strings.TrimSpace(foldPunctuation.Replace(s)) },
}

// foldPunctuation maps the typographic dashes, quotes and spaces models like to type to
// their ASCII forms.
var foldPunctuation = strings.NewReplacer(
	"\u2010", "-", "\u2011", "-", "\u2012", "-", "\u2013", "-", "\u2014", "-", "\u2015", "-", "\u2212", "-",
	"\u2018", "'", "\u2019", "'", "\u201A", "'", "\u201B", "'",
	"\u201C", `"`, "\u201D", `"`, "\u201E", `"`, "\u201F", `"`,
	"\u00A0", " ", "\u2002", " ", "\u2003", " ", "\u2004", " ", "\u2005", " ", "\u2006", " ",
	"\u2007", " ", "\u2008", " ", "\u2009", " ", "\u200A", " ", "\u202F", " ", "\u205F", " ", "\u3000", " ",
)
