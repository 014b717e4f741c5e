package tui

import (
	"fmt"
	"regexp"
	"sync"

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
	m.dialogHidden = 0
	if len(body) > avail && avail >= 3 {
		m.dialogHidden = len(body) - (avail - 2)
	}
	if m.dialogScroll > 0 && m.dialogHidden > 0 {
		return scrolledBody(m, body, avail)
	}
	if len(body) <= avail || avail < 3 {
		if avail < len(body) && avail > 0 {
			return body[len(body)-avail:]
		}
		return body
	}
	more := func(n int, where string) string {
		if where == "above" {
			where += " not shown (pgup)"
		} else {
			where += " not shown"
		}
		return m.st.r(m.st.dim, fmt.Sprintf("  … %d row(s) %s", n, where))
	}
	focus := -1
	for i, l := range body {
		if selectedChoice().MatchString(ansi.Strip(l)) {
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

// scrolledBody is a cut body scrolled up by m.dialogScroll rows (pgup): a window of
// it with a line above and below saying what is not shown.
func scrolledBody(m *Model, body []string, avail int) []string {
	w := max(avail-2, 1)
	m.dialogScroll = min(m.dialogScroll, len(body)-w)
	to := len(body) - m.dialogScroll
	from := to - w
	out := []string{m.st.r(m.st.dim, fmt.Sprintf("  … %d row(s) above not shown (pgup, pgdown)", from))}
	out = append(out, body[from:to]...)
	return append(out, m.st.r(m.st.dim, fmt.Sprintf("  … %d row(s) below not shown (pgdown)", len(body)-to)))
}

// scrollDialog scrolls the open dialog's body when it is taller than the pane
// (pgup, pgdown, ctrl+u, ctrl+d), and says whether it took the key. An unfolded diff
// of a permission question keeps those keys for itself.
func (m *Model) scrollDialog(key string) bool {
	if m.dialogHidden == 0 {
		return false
	}
	if pd, ok := m.dialogs[0].(*permissionDialog); ok && pd.expanded {
		return false
	}
	step := max(dialogRows(m)/2, 1)
	switch key {
	case "pgup", "ctrl+u":
		m.dialogScroll = min(m.dialogScroll+step, m.dialogHidden)
	case "pgdown", "ctrl+d":
		m.dialogScroll = max(m.dialogScroll-step, 0)
	default:
		return false
	}
	return true
}

// selectedChoice is the start of the row of a choice under the cursor.
var selectedChoice = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^› \d+\. `) })
