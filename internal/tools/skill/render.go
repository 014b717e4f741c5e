package skill

import (
	"fmt"
	"strings"
	"unicode/utf8"

	"github.com/gantry-dev/gantry/internal/tool"
)

// render is read_skill's text: header, then the skill's text with the arguments and
// its folder applied. Longer than max characters (max > 0), it keeps the head (two
// thirds) and the tail of the skill, whole lines where a line is not too long, and
// says in one line how many characters were cut and which lines of the file, with the
// read_file call that shows them. The arguments appended to a skill without
// $ARGUMENTS are kept after the tail. The result is at most max characters, so that
// the loop's bound does not cut it again.
func render(s Skill, raw, arguments, header string, max int) string {
	dir := s.Dir()
	filled, after := fill(raw, arguments, dir)
	whole := header + filled + after
	if max <= 0 || utf8.RuneCountInString(whole) <= max {
		return whole
	}
	// Line by line, so that the numbers are the file's lines.
	lines := strings.SplitAfter(raw, "\n")
	if lines[len(lines)-1] == "" {
		lines = lines[:len(lines)-1]
	}
	withPlaceholder := strings.Contains(strings.ReplaceAll(raw, dirPlaceholder, dir), placeholder)
	total := 0
	for i, l := range lines {
		if dir != "" {
			l = strings.ReplaceAll(l, dirPlaceholder, dir)
		}
		if withPlaceholder {
			l = strings.ReplaceAll(l, placeholder, arguments)
		}
		lines[i] = l
		total += utf8.RuneCountInString(l)
	}
	trailer := ""
	if !withPlaceholder && arguments != "" {
		trailer = "\nARGUMENTS: " + tool.Bound(arguments, max/4) + "\n"
	}
	n := len(lines)
	note := func(cut, a, b int) string {
		which := fmt.Sprintf("lines %d–%d of %d are", a, b, n)
		if a == b {
			which = fmt.Sprintf("line %d of %d is", a, n)
		}
		if IsBuiltin(s) {
			return fmt.Sprintf("\n[… %d of %d characters cut: %s not shown in full; this skill is built into gantry and has no file to read them from …]\n", cut, total, which)
		}
		return fmt.Sprintf("\n[… %d of %d characters cut: %s not shown in full; read them with read_file {\"path\": %q, \"start\": %d, \"end\": %d} …]\n", cut, total, which, s.Path, a, b)
	}
	budget := max - utf8.RuneCountInString(header) - utf8.RuneCountInString(note(total, n, n)) - utf8.RuneCountInString(trailer)
	if budget < max/3 { // too small a bound for lines and a note
		return tool.Bound(whole, max)
	}
	headRoom := budget * 2 / 3
	tailRoom := budget - headRoom

	var head strings.Builder
	used, full := 0, 0 // characters of the head; lines shown whole
	for full < n && used+utf8.RuneCountInString(lines[full]) <= headRoom {
		head.WriteString(lines[full])
		used += utf8.RuneCountInString(lines[full])
		full++
	}
	partial := 0 // characters shown of line full+1 (a long line)
	if full < n && used < headRoom*3/4 {
		part := tool.PrefixRunes(lines[full], headRoom-used)
		partial = utf8.RuneCountInString(part)
		head.WriteString(part)
		used += partial
	}

	var tail []string
	usedTail, from := 0, n // characters of the tail; the first line shown whole, 0-based
	lowest := full
	if partial > 0 {
		lowest = full + 1
	}
	for from-1 >= lowest && usedTail+utf8.RuneCountInString(lines[from-1]) <= tailRoom {
		from--
		tail = append(tail, lines[from])
		usedTail += utf8.RuneCountInString(lines[from])
	}
	if from-1 >= full && usedTail < tailRoom*3/4 {
		l := lines[from-1]
		room := tailRoom - usedTail
		if from-1 == full { // the line the head shows in part: never twice
			room = min(room, utf8.RuneCountInString(l)-partial-1)
		}
		if room > 0 {
			suffix := suffixRunes(l, room)
			tail = append(tail, suffix)
			usedTail += utf8.RuneCountInString(suffix)
		}
	}
	var b strings.Builder
	b.WriteString(header)
	b.WriteString(head.String())
	b.WriteString(note(total-used-usedTail, full+1, from))
	for i := len(tail) - 1; i >= 0; i-- {
		b.WriteString(tail[i])
	}
	b.WriteString(trailer)
	out := b.String()
	if utf8.RuneCountInString(out) > max { // never: the note was counted at its longest
		return tool.Bound(out, max)
	}
	return out
}

// suffixRunes returns the last n characters of s.
func suffixRunes(s string, n int) string {
	r := []rune(s)
	if n >= len(r) {
		return s
	}
	return string(r[len(r)-n:])
}
