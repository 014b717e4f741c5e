package tui

import (
	"fmt"
	"regexp"

	"github.com/charmbracelet/x/ansi"
)

// dialogRows is how many rows of text a dialog's box may hold: the pane's height less
// its two borders, the status line under it and one row above it (the running
// call's line), so that its title is never pushed off the top; unbounded while the
// height is not known.
func dialogRows(m *Model) int {
	if m.height <= 0 { // not known yet: no bound
		return 1 << 20
	}
	return max(m.height-4, 6)
}

// fitBody cuts a dialog's wrapped body to avail rows when it is taller. The choices
// are what matters most: the body's end is kept (where they are), with its first row
// (what is asked about) above a line saying how many rows are not shown; when the
// selected choice would be cut away, the rows around it are shown instead.
func fitBody(m *Model, body []string, avail int) []string {
	if len(body) <= avail || avail < 3 {
		if avail < len(body) && avail > 0 {
			return body[len(body)-avail:]
		}
		return body
	}
	more := func(n int, where string) string {
		return m.st.r(m.st.dim, fmt.Sprintf("  … %d row(s) %s not shown", n, where))
	}
	focus := -1
	for i, l := range body {
		if selectedChoice.MatchString(ansi.Strip(l)) {
			focus = i
		}
	}
	from := len(body) - (avail - 2)
	if focus < 0 || focus >= from {
		out := append([]string{body[0], more(from-1, "above")}, body[from:]...)
		return out
	}
	// The selected choice lies above the tail: a window around it, cut on both sides.
	w := max(avail-3, 1)
	from = max(focus-w/2, 1)
	to := min(from+w, len(body))
	out := []string{body[0]}
	if from > 1 {
		out = append(out, more(from-1, "above"))
	}
	out = append(out, body[from:to]...)
	if to < len(body) {
		out = append(out, more(len(body)-to, "below"))
	}
	return out
}

// selectedChoice is the start of the row of a choice under the cursor.
var selectedChoice = regexp.MustCompile(`^› \d+\. `)
