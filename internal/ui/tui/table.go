package tui

import (
	"strings"

	"github.com/charmbracelet/x/ansi"
)

// table lays rows out in columns for a width of screen: every column but the last as
// wide as its widest cell (capped so that the last keeps room), the last wrapped at
// word boundaries under its own start. Cells may be styled.
func table(rows [][]string, width int, indent string) []string {
	if len(rows) == 0 {
		return nil
	}
	cols := 0
	for _, r := range rows {
		cols = max(cols, len(r))
	}
	widths := make([]int, cols)
	for _, r := range rows {
		for i, c := range r[:len(r)-1] {
			widths[i] = max(widths[i], ansi.StringWidth(c))
		}
	}
	// The columns before the last take at most half of the width between them.
	limit := max((width-len(indent))/2, 8)
	for i := range widths[:cols-1] {
		widths[i] = min(widths[i], max(limit/(cols-1), 4))
	}
	var out []string
	for _, r := range rows {
		var b strings.Builder
		b.WriteString(indent)
		at := len(indent)
		for i, c := range r[:len(r)-1] {
			if w := ansi.StringWidth(c); w > widths[i] {
				c = ansi.Truncate(c, widths[i], "…")
			}
			b.WriteString(c)
			b.WriteString(strings.Repeat(" ", widths[i]-ansi.StringWidth(c)+2))
			at += widths[i] + 2
		}
		last := r[len(r)-1]
		room := max(width-at-1, 10)
		lines := strings.Split(ansi.Wrap(last, room, ""), "\n")
		b.WriteString(lines[0])
		out = append(out, strings.TrimRight(b.String(), " "))
		for _, l := range lines[1:] {
			out = append(out, strings.Repeat(" ", at)+l)
		}
	}
	return out
}
