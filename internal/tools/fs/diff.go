package fs

// Kept after measuring it against github.com/aymanbagabas/go-udiff: docs/tools.md, "Libraries measured".

import (
	"fmt"
	"strconv"
	"strings"
)

// A diffLine is one line of a line diff: kept (' '), deleted ('-') or inserted ('+').
// text keeps its line terminator; oldNo and newNo are 1-based (0 where the line is absent).
type diffLine struct {
	op           byte
	text         string
	oldNo, newNo int
}

// splitLines cuts s after every '\n'; the last line has no terminator when s does not end
// with one.
func splitLines(s string) []string {
	if s == "" {
		return nil
	}
	lines := make([]string, 0, strings.Count(s, "\n")+1)
	for len(s) > 0 {
		i := strings.IndexByte(s, '\n')
		if i < 0 {
			lines = append(lines, s)
			break
		}
		lines = append(lines, s[:i+1])
		s = s[i+1:]
	}
	return lines
}

// Limits of the minimal diff: past them the changed middle is shown as one replaced block,
// which is still a correct diff, only not the shortest.
const (
	diffMaxD    = 2000      // edit distance; the trace costs about D² int32s
	diffMaxWork = 100 << 20 // snake steps
)

// lineDiff returns the line diff turning a into b: Myers' algorithm after trimming the
// common head and tail.
func lineDiff(a, b []string) []diffLine {
	pre := 0
	for pre < len(a) && pre < len(b) && a[pre] == b[pre] {
		pre++
	}
	suf := 0
	for suf < len(a)-pre && suf < len(b)-pre && a[len(a)-1-suf] == b[len(b)-1-suf] {
		suf++
	}
	// Only the differing middle is interned and compared as integers.
	ids := make(map[string]int32)
	intern := func(ls []string) []int32 {
		out := make([]int32, len(ls))
		for i, l := range ls {
			id, ok := ids[l]
			if !ok {
				id = int32(len(ids))
				ids[l] = id
			}
			out[i] = id
		}
		return out
	}
	mid := myers(intern(a[pre:len(a)-suf]), intern(b[pre:len(b)-suf]))

	out := make([]diffLine, 0, len(a)+len(b)-pre-suf)
	i, j := 0, 0
	keep := func() {
		out = append(out, diffLine{op: ' ', text: a[i], oldNo: i + 1, newNo: j + 1})
		i++
		j++
	}
	for range pre {
		keep()
	}
	for _, op := range mid {
		switch op {
		case ' ':
			keep()
		case '-':
			out = append(out, diffLine{op: '-', text: a[i], oldNo: i + 1})
			i++
		case '+':
			out = append(out, diffLine{op: '+', text: b[j], newNo: j + 1})
			j++
		}
	}
	for range suf {
		keep()
	}
	return out
}

// myers returns the edit script (' ', '-', '+' per step) from a to b, shortest when it is
// found within the limits, else all deletions then all insertions.
func myers(a, b []int32) []byte {
	n, m := len(a), len(b)
	fallback := func() []byte {
		s := make([]byte, 0, n+m)
		s = append(s, strings.Repeat("-", n)...)
		return append(s, strings.Repeat("+", m)...)
	}
	if n == 0 || m == 0 {
		return fallback()
	}
	maxD := min(n+m, diffMaxD)
	off := maxD + 1
	v := make([]int32, 2*off+1)
	// trace[d] holds v[-d+1 .. d-1] as it was before round d.
	trace := make([][]int32, 0, 16)
	work := 0
	for d := 0; d <= maxD; d++ {
		if d == 0 {
			trace = append(trace, nil)
		} else {
			trace = append(trace, append([]int32(nil), v[off-d+1:off+d]...))
		}
		for k := -d; k <= d; k += 2 {
			var px int32
			if k == -d || (k != d && v[off+k-1] < v[off+k+1]) {
				px = v[off+k+1]
			} else {
				px = v[off+k-1] + 1
			}
			xx, yy := int(px), int(px)-k
			for xx < n && yy < m && a[xx] == b[yy] {
				xx++
				yy++
			}
			work += xx - int(px) + 1
			v[off+k] = int32(xx)
			if xx >= n && yy >= m {
				return backtrack(trace, d, n, m)
			}
		}
		if work > diffMaxWork {
			break
		}
	}
	return fallback()
}

func backtrack(trace [][]int32, D, n, m int) []byte {
	script := make([]byte, 0, n+m)
	x, y := n, m
	for d := D; d > 0; d-- {
		prev := trace[d] // v[-d+1 .. d-1]
		at := func(k int) int { return int(prev[k+d-1]) }
		k := x - y
		var pk int
		if k == -d || (k != d && at(k-1) < at(k+1)) {
			pk = k + 1
		} else {
			pk = k - 1
		}
		px := at(pk)
		py := px - pk
		for x > px && y > py {
			script = append(script, ' ')
			x--
			y--
		}
		if x == px {
			script = append(script, '+')
		} else {
			script = append(script, '-')
		}
		x, y = px, py
	}
	for x > 0 {
		script = append(script, ' ')
		x--
	}
	for i, j := 0, len(script)-1; i < j; i, j = i+1, j-1 {
		script[i], script[j] = script[j], script[i]
	}
	return script
}

// diffStats summarises a diff: lines added and deleted, and the first changed line of the
// new text (0 when nothing changed).
func diffStats(lines []diffLine) (added, deleted, first int) {
	newAt := 1
	for _, l := range lines {
		switch l.op {
		case '+':
			added++
			if first == 0 {
				first = l.newNo
			}
		case '-':
			deleted++
			if first == 0 {
				first = newAt
			}
		default:
			newAt = l.newNo + 1
		}
	}
	return added, deleted, first
}

// diffContext is the number of unchanged lines shown around a change.
const diffContext = 3

// unified renders lines as a unified diff between from and to (header names such as
// "a/x.go" or "/dev/null"). numbered prefixes every line with its line number (the old
// number for a deleted line, the new one otherwise), for the model.
func unified(from, to string, lines []diffLine, numbered bool) string {
	var sb strings.Builder
	sb.WriteString("--- " + from + "\n+++ " + to + "\n")
	width := 1
	if numbered {
		width = len(strconv.Itoa(max(len(lines), 1)))
	}
	for start := 0; start < len(lines); {
		// Find the next change.
		c := start
		for c < len(lines) && lines[c].op == ' ' {
			c++
		}
		if c == len(lines) {
			break
		}
		lo := max(c-diffContext, start)
		// Extend the hunk while changes are within 2×context of each other.
		hi := c
		for {
			for hi < len(lines) && lines[hi].op != ' ' {
				hi++
			}
			next := hi
			for next < len(lines) && lines[next].op == ' ' {
				next++
			}
			if next < len(lines) && next-hi <= 2*diffContext {
				hi = next
				continue
			}
			hi = min(hi+diffContext, len(lines))
			break
		}
		writeHunk(&sb, lines[lo:hi], lines, lo, numbered, width)
		start = hi
	}
	return sb.String()
}

func writeHunk(sb *strings.Builder, h, all []diffLine, lo int, numbered bool, width int) {
	// Positions before the hunk, for empty sides.
	oldBefore, newBefore := 0, 0
	for i := lo - 1; i >= 0; i-- {
		if oldBefore == 0 && all[i].oldNo > 0 {
			oldBefore = all[i].oldNo
		}
		if newBefore == 0 && all[i].newNo > 0 {
			newBefore = all[i].newNo
		}
		if oldBefore > 0 && newBefore > 0 {
			break
		}
	}
	oldN, newN := 0, 0
	for _, l := range h {
		if l.op != '+' {
			oldN++
		}
		if l.op != '-' {
			newN++
		}
	}
	oldStart, newStart := oldBefore, newBefore
	if oldN > 0 {
		oldStart++
	}
	if newN > 0 {
		newStart++
	}
	fmt.Fprintf(sb, "@@ -%s +%s @@\n", hunkRange(oldStart, oldN), hunkRange(newStart, newN))
	for _, l := range h {
		text, eol := strings.CutSuffix(l.text, "\n")
		text = strings.TrimSuffix(text, "\r")
		if numbered {
			no := l.newNo
			if l.op == '-' {
				no = l.oldNo
			}
			fmt.Fprintf(sb, "%c%*d| %s\n", l.op, width, no, text)
		} else {
			sb.WriteByte(l.op)
			sb.WriteString(text)
			sb.WriteByte('\n')
		}
		if !eol {
			sb.WriteString("\\ No newline at end of file\n")
		}
	}
}

func hunkRange(start, n int) string {
	if n == 1 {
		return strconv.Itoa(start)
	}
	return fmt.Sprintf("%d,%d", start, n)
}
