package tool

import (
	"fmt"
	"unicode/utf8"
)

// Bound truncates s to at most max characters (runes), keeping the head and the tail
// and saying in one line what was cut. max <= 0 means no bound.
func Bound(s string, max int) string {
	if max <= 0 || len(s) <= max {
		return s
	}
	n := utf8.RuneCountInString(s)
	if n <= max {
		return s
	}
	// The note counts in the bound, so that bounding bounded text changes nothing and
	// the numbers it gives stay true: head + note + tail is at most max characters.
	keep, note := fit(n, max, "\n[… %d of %d characters cut from the middle; ask for a narrower range (read_file start/end, grep, head/tail) to see them …]\n")
	if keep < max/2 { // a small bound: a shorter note
		keep, note = fit(n, max, "\n[… %d of %d characters cut …]\n")
	}
	if keep < max/2 { // too small for any note: keep text, not words about it
		note = "\n[…]\n"
		keep = max - 5
	}
	headRunes := keep * 2 / 3
	tailRunes := keep - headRunes
	head := PrefixRunes(s, headRunes)
	tail := suffixRunes(s, tailRunes)
	return head + note + tail
}

// fit returns how many of n characters can be kept beside the note made of format
// (given the characters cut and n) within max, and the note; keep falls below max/2
// when the note does not fit.
func fit(n, max int, format string) (keep int, note string) {
	keep = max
	for keep >= max/2 { // ends: keep falls each round
		note = fmt.Sprintf(format, n-keep, n)
		k := max - utf8.RuneCountInString(note)
		if k >= keep {
			break // this note, with these numbers, fits beside keep characters
		}
		keep = k
	}
	return keep, note
}

// PrefixRunes returns the first n runes of s (all of s when it is shorter).
func PrefixRunes(s string, n int) string {
	i := 0
	for k := range s {
		if i == n {
			return s[:k]
		}
		i++
	}
	return s
}

func suffixRunes(s string, n int) string {
	i := 0
	for k := len(s); k > 0; {
		_, size := utf8.DecodeLastRuneInString(s[:k])
		k -= size
		i++
		if i == n {
			return s[k:]
		}
	}
	return s
}

// DefaultMaxOutput is the output bound, in characters, when none is configured.
const DefaultMaxOutput = 30000

// MaxOutputOr returns n, or DefaultMaxOutput when n is not positive.
func MaxOutputOr(n int) int {
	if n <= 0 {
		return DefaultMaxOutput
	}
	return n
}
