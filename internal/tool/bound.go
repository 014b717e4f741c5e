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
	headRunes := max * 2 / 3
	tailRunes := max - headRunes
	head := PrefixRunes(s, headRunes)
	tail := suffixRunes(s, tailRunes)
	cut := n - headRunes - tailRunes
	return head + fmt.Sprintf("\n[… %d of %d characters cut from the middle; ask for a narrower range (read_file start/end, grep, head/tail) to see them …]\n", cut, n) + tail
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
