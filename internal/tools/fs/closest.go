package fs

import (
	"fmt"
	"strconv"
	"strings"
)

// Limits of the search for the region most like a text that was not found.
const (
	closestMaxWork  = 20_000_000 // line comparisons before falling back to one line
	closestMaxShown = 30         // lines of the region shown
	closestMaxWidth = 200        // characters shown of one line
)

// notFound refuses edits[i], whose old text is absent, and shows the closest region.
func notFound(shown, text string, i int, old string) string {
	head := fmt.Sprintf("edits[%d].old was not found in %s.", i, shown)
	return head + closestRegion(text, old)
}

// closestRegion finds the lines of text most similar to want and renders them with their
// numbers, prefixed by a sentence; "" when nothing resembles want.
func closestRegion(text, want string) string {
	fileLines := strings.Split(strings.ReplaceAll(text, "\r\n", "\n"), "\n")
	wantLines := strings.Split(strings.ReplaceAll(strings.TrimRight(want, "\r\n"), "\r\n", "\n"), "\n")
	start, score, exactSpace := bestWindow(fileLines, wantLines)
	if start < 0 || score < 0.3 {
		return " Nothing in the file resembles it; read the file again before editing."
	}
	end := min(start+len(wantLines), len(fileLines))
	var sb strings.Builder
	if exactSpace {
		fmt.Fprintf(&sb, " Lines %d–%d differ from it only in whitespace; copy them exactly:\n", start+1, end)
	} else if end-start == 1 {
		fmt.Fprintf(&sb, " The most similar line is %d:\n", start+1)
	} else {
		fmt.Fprintf(&sb, " The most similar lines are %d–%d:\n", start+1, end)
	}
	width := len(strconv.Itoa(end))
	for n := start; n < end && n < start+closestMaxShown; n++ {
		l := fileLines[n]
		if len(l) > closestMaxWidth {
			l = prefixBytes(l, closestMaxWidth) + " …"
		}
		fmt.Fprintf(&sb, "%*d| %s\n", width, n+1, l)
	}
	if end-start > closestMaxShown {
		fmt.Fprintf(&sb, "… (%d more lines)\n", end-start-closestMaxShown)
	}
	return strings.TrimSuffix(sb.String(), "\n")
}

// bestWindow returns the start of the window of len(want) lines most similar to want, its
// mean similarity, and whether it equals want once whitespace is ignored.
func bestWindow(lines, want []string) (best int, score float64, exactSpace bool) {
	k := len(want)
	n := len(lines)
	if n == 0 || k == 0 {
		return -1, 0, false
	}
	windows := max(n-k+1, 1)
	best, bestSum := -1, -1.0
	if windows*k <= closestMaxWork {
		for i := range windows {
			sum := 0.0
			for j := 0; j < k && i+j < n; j++ {
				sum += similarity(want[j], lines[i+j])
			}
			if sum > bestSum {
				best, bestSum = i, sum
			}
		}
	} else {
		// Too many lines: place the window by the longest wanted line alone.
		anchor := 0
		for j := range want {
			if len(strings.TrimSpace(want[j])) > len(strings.TrimSpace(want[anchor])) {
				anchor = j
			}
		}
		top := -1.0
		for i := range lines {
			if s := similarity(want[anchor], lines[i]); s > top {
				top, best = s, i
			}
		}
		best = min(max(best-anchor, 0), windows-1)
		bestSum = 0
		for j := 0; j < k && best+j < n; j++ {
			bestSum += similarity(want[j], lines[best+j])
		}
	}
	exactSpace = best+k <= n
	for j := 0; exactSpace && j < k; j++ {
		exactSpace = equalIgnoringSpace(want[j], lines[best+j])
	}
	return best, bestSum / float64(k), exactSpace
}

// similarity scores two lines from 0 to 1, ignoring surrounding whitespace: the share of
// their bytes in a common prefix and suffix, which tolerates a typo or a changed word.
func similarity(a, b string) float64 {
	a, b = strings.TrimSpace(a), strings.TrimSpace(b)
	if a == b {
		return 1
	}
	if equalIgnoringSpace(a, b) {
		return 0.95
	}
	p := 0
	for p < len(a) && p < len(b) && a[p] == b[p] {
		p++
	}
	s := 0
	for s < len(a)-p && s < len(b)-p && a[len(a)-1-s] == b[len(b)-1-s] {
		s++
	}
	return float64(2*(p+s)) / float64(len(a)+len(b))
}

// equalIgnoringSpace compares a and b with their spaces, tabs and line ends removed.
func equalIgnoringSpace(a, b string) bool {
	i, j := 0, 0
	for {
		for i < len(a) && isSpace(a[i]) {
			i++
		}
		for j < len(b) && isSpace(b[j]) {
			j++
		}
		if i == len(a) || j == len(b) {
			return i == len(a) && j == len(b)
		}
		if a[i] != b[j] {
			return false
		}
		i++
		j++
	}
}

func isSpace(c byte) bool {
	return c == ' ' || c == '\t' || c == '\r' || c == '\n' || c == '\v' || c == '\f'
}

// prefixBytes cuts s to at most n bytes at a rune boundary.
func prefixBytes(s string, n int) string {
	if len(s) <= n {
		return s
	}
	for n > 0 && !isRuneStart(s[n]) {
		n--
	}
	return s[:n]
}

func isRuneStart(b byte) bool { return b&0xC0 != 0x80 }
