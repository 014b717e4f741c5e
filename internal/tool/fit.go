package tool

import (
	"fmt"
	"strings"
	"unicode/utf8"
)

// Preview says how much the model reads of a result's Text that the bound cuts (see
// Fit). The zero value is the bound itself, two thirds head and one third tail.
type Preview struct {
	// Chars is what the model reads of a cut text, note included, in characters;
	// 0, or more than the bound, means the bound.
	Chars int
	// Tail gives the tail three quarters of the preview: a command's errors and its
	// summary come last.
	Tail bool
}

// ShellPreview is the preview of a command's output (bash, task_output, !command,
// eval): 4,000 characters, about 1,000 tokens, a quarter head and three quarters tail.
// The whole output is saved, so a short preview loses nothing.
var ShellPreview = Preview{Chars: 4000, Tail: true}

// Fit is r as the model reads it. A Text within max characters is left as it is.
// A longer one is saved whole by out under name (the call's id) and replaced by a
// preview — head and tail, in whole lines where lines allow — around one note saying
// how much was cut, which lines, the saved file and how to read a range of it; the
// preview is within max, and within r.Preview.Chars when that is shorter. With no out,
// or when saving fails, the note says the text was not saved (and why). max <= 0
// means no bound; r.Room, when larger than max, is the bound of this result.
func Fit(r Result, max int, out Outputs, name string) Result {
	if max > 0 && r.Room > max {
		max = r.Room
	}
	if max <= 0 || len(r.Text) <= max {
		return r
	}
	n := utf8.RuneCountInString(r.Text)
	if n <= max {
		return r
	}
	limit := max
	if c := r.Preview.Chars; c > 0 && c < max {
		limit = c
	}
	var saved string
	var why string
	if out == nil {
		why = ErrNoOutputs.Error()
	} else if p, err := out.Save(name, r.Text); err != nil {
		why = OneLine(err.Error(), 300)
	} else {
		saved = p
	}
	r.Text = preview(r.Text, n, limit, r.Preview.Tail, saved, why)
	return r
}

// preview is s (n characters) cut to at most limit characters around the note.
func preview(s string, n, limit int, tailHeavy bool, saved, why string) string {
	lines := strings.Count(s, "\n")
	if !strings.HasSuffix(s, "\n") {
		lines++
	}
	keep := limit - 200 // a first guess at the note's length, corrected below
	for keep > 0 {
		headRunes := keep * 2 / 3
		if tailHeavy {
			headRunes = keep / 4
		}
		head := wholeLinesHead(PrefixRunes(s, headRunes))
		tail := wholeLinesTail(suffixRunes(s, keep-headRunes))
		first := strings.Count(head, "\n") + 1 // the first line not shown whole
		last := lastHidden(s, len(s)-len(tail))
		shown := utf8.RuneCountInString(head) + utf8.RuneCountInString(tail)
		note := cutNote(n-shown, n, first, last, lines, saved, why)
		over := shown + utf8.RuneCountInString(note) - limit
		if over <= 0 {
			return head + note + tail
		}
		keep -= over
	}
	// A bound too small for the note beside any text: the note alone, cut.
	return PrefixRunes(cutNote(n, n, 1, lines, lines, saved, why), limit)
}

// cutNote is the line between a preview's head and tail.
func cutNote(cut, n, first, last, lines int, saved, why string) string {
	which := fmt.Sprintf("lines %d–%d of %d are not shown in full", first, last, lines)
	if first >= last { // the cut fell inside one line
		which = fmt.Sprintf("line %d of %d is not shown in full", first, lines)
	}
	if saved != "" {
		end := min(last, first+199)
		return fmt.Sprintf("\n[… %d of %d characters cut: %s. The whole output is saved in %s: read a range with read_file {\"path\": %q, \"start\": %d, \"end\": %d}, or search it with grep …]\n",
			cut, n, which, saved, saved, first, end)
	}
	return fmt.Sprintf("\n[… %d of %d characters cut: %s; the whole output was not saved (%s) …]\n", cut, n, which, why)
}

// lastHidden is the number of the last line not shown whole when s is shown from
// byte start on.
func lastHidden(s string, start int) int {
	line := strings.Count(s[:start], "\n") + 1
	if start == 0 || s[start-1] == '\n' {
		return line - 1
	}
	return line
}

// wholeLinesHead is head without its last partial line, when a line end falls in its
// last quarter (so that a preview of long lines still shows text).
func wholeLinesHead(head string) string {
	if i := strings.LastIndexByte(head, '\n'); i >= 0 && i >= len(head)*3/4 {
		return head[:i+1]
	}
	return head
}

// wholeLinesTail is tail without its first partial line, when a line end falls in its
// first quarter.
func wholeLinesTail(tail string) string {
	if i := strings.IndexByte(tail, '\n'); i >= 0 && i < len(tail)/4 && i+1 < len(tail) {
		return tail[i+1:]
	}
	return tail
}

// Within is a tool's output within max characters whose body is bounded by a budget
// (room, in bytes or characters) and followed by lines that depend on what the body
// left out (how much was cut, the files skipped): the body's budget shrinks by what
// those lines overshoot until the whole fits, so that the loop's bound never cuts the
// middle of a list. When the closing lines alone are too long, the whole is Bound.
func Within(max int, render func(room int) string) string {
	room := max
	for {
		out := render(room)
		over := utf8.RuneCountInString(out) - max
		if over <= 0 {
			return out
		}
		if room == 0 {
			return Bound(out, max)
		}
		room = max0(room - over)
	}
}

func max0(n int) int {
	if n < 0 {
		return 0
	}
	return n
}
