package fs

import "strings"

// spanDiff returns the line diff of applying spans (sorted, not overlapping, offsets
// into full) to full, without diffing the whole file: only the lines each group of
// edits touches are compared; every other line is kept as it is. On a large file with
// a few edits it costs a pass over the lines instead of a diff of everything between
// the first and the last edit.
func spanDiff(full string, spans []span) []diffLine {
	starts := lineStarts(full)
	lineOf := func(off int) int { // index of the line holding byte off
		lo, hi := 0, len(starts)-1
		for lo < hi {
			mid := (lo + hi + 1) / 2
			if starts[mid] <= off {
				lo = mid
			} else {
				hi = mid - 1
			}
		}
		return lo
	}
	lineEnd := func(l int) int { // offset just past line l
		if l+1 < len(starts) {
			return starts[l+1]
		}
		return len(full)
	}
	nLines := len(starts)
	if full == "" || strings.HasSuffix(full, "\n") {
		nLines-- // starts holds a start for the empty remainder after the last newline
	}

	out := make([]diffLine, 0, nLines+2*len(spans)+8)
	oldLine, newLine := 0, 0 // lines emitted so far, 0-based
	keepTo := func(l int) {
		for ; oldLine < l; oldLine++ {
			newLine++
			out = append(out, diffLine{op: ' ', text: full[starts[oldLine]:lineEnd(oldLine)], oldNo: oldLine + 1, newNo: newLine})
		}
	}
	for i := 0; i < len(spans); {
		// A group: spans whose line ranges touch, expanded to whole lines.
		first := lineOf(spans[i].start)
		last := lastLine(spans[i], lineOf, nLines)
		j := i + 1
		from := starts[first]
		var to int
		var region strings.Builder
		for {
			for j < len(spans) && lineOf(spans[j].start) <= last {
				last = max(last, lastLine(spans[j], lineOf, nLines))
				j++
			}
			to = len(full)
			if last >= first {
				to = lineEnd(last)
			}
			region.Reset()
			at := from
			for _, s := range spans[i:j] {
				region.WriteString(full[at:s.start])
				region.WriteString(s.repl)
				at = s.end
			}
			region.WriteString(full[at:to])
			// A replacement that removes the group's last line end joins the next
			// line to it: that line belongs to the group too.
			if to == len(full) || region.Len() == 0 || strings.HasSuffix(region.String(), "\n") {
				break
			}
			last++
		}

		keepTo(first)
		for _, d := range lineDiff(splitLines(full[from:to]), splitLines(region.String())) {
			switch d.op {
			case ' ':
				oldLine++
				newLine++
				d.oldNo, d.newNo = oldLine, newLine
			case '-':
				oldLine++
				d.oldNo = oldLine
			case '+':
				newLine++
				d.newNo = newLine
			}
			out = append(out, d)
		}
		oldLine = max(oldLine, last+1)
		i = j
	}
	keepTo(nLines)
	return out
}

// lastLine is the last line a span covers: the line of its last byte, or of its start
// when it is empty (an insertion); -1 past the end of a file ending in a newline.
func lastLine(s span, lineOf func(int) int, nLines int) int {
	if s.end > s.start {
		return lineOf(s.end - 1)
	}
	return min(lineOf(s.start), nLines-1)
}

// lineStarts returns the offset of every line start of s, and one for the text after
// the last newline (empty when s ends with one).
func lineStarts(s string) []int {
	starts := make([]int, 1, strings.Count(s, "\n")+1)
	for i := 0; i < len(s); i++ {
		if s[i] == '\n' {
			starts = append(starts, i+1)
		}
	}
	return starts
}
