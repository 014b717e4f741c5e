package tui

import (
	"strings"

	"github.com/charmbracelet/x/ansi"
)

// table lays rows out in columns for a width of screen; no cell is cut. Every column
// but the last is as wide as its widest cell, unless that leaves the last less than
// half of the width: then the widest columns give way first, and a cell wider than
// its column spills, the rest of its row going on under its column on the next
// line. The last column is wrapped at word boundaries under its own start. Cells may
// be styled.
func table(rows [][]string, width int, indent string) []string {
	if len(rows) == 0 {
		return nil
	}
	cols := 0
	for _, r := range rows {
		cols = max(cols, len(r))
	}
	widths := make([]int, cols)
	lastWidth := 0
	for _, r := range rows {
		for i, c := range r[:len(r)-1] {
			widths[i] = max(widths[i], ansi.StringWidth(c))
		}
		lastWidth = max(lastWidth, ansi.StringWidth(r[len(r)-1]))
	}
	usable := max(width-len(indent)-1, 20)
	// The columns before the last share what the last leaves: it keeps its own
	// width up to half of the screen.
	budget := usable - min(lastWidth, usable/2) - 2*(cols-1)
	capColumns(widths[:cols-1], max(budget, 4*(cols-1)))
	var out []string
	for _, r := range rows {
		var b strings.Builder
		b.WriteString(indent)
		at, planned := len(indent), len(indent) // where the text is, where the column starts
		for i, c := range r[:len(r)-1] {
			if at > planned { // the cell before spilled: this one goes under its column
				out = append(out, strings.TrimRight(b.String(), " "))
				b.Reset()
				b.WriteString(strings.Repeat(" ", planned))
				at = planned
			}
			if w := ansi.StringWidth(c); w > usable-at+len(indent) {
				c = ansi.Truncate(c, max(usable-at+len(indent), 4), "…") // wider than the screen
			}
			b.WriteString(c)
			at += ansi.StringWidth(c)
			planned += widths[i] + 2
			if at < planned {
				b.WriteString(strings.Repeat(" ", planned-at))
				at = planned
			}
		}
		if at > planned {
			out = append(out, strings.TrimRight(b.String(), " "))
			b.Reset()
			b.WriteString(strings.Repeat(" ", planned))
			at = planned
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

// capColumns narrows the widest of widths until they add up to at most budget: the
// narrow columns keep their width, the wide ones share the rest equally.
func capColumns(widths []int, budget int) {
	sum := 0
	for _, w := range widths {
		sum += w
	}
	if sum <= budget || len(widths) == 0 {
		return
	}
	lo, hi := 1, 0
	for _, w := range widths {
		hi = max(hi, w)
	}
	for lo < hi { // the largest cap whose columns fit the budget
		c := (lo + hi + 1) / 2
		total := 0
		for _, w := range widths {
			total += min(w, c)
		}
		if total <= budget {
			lo = c
		} else {
			hi = c - 1
		}
	}
	for i := range widths {
		widths[i] = min(widths[i], lo)
	}
}

// tableFits reports whether rows fit width as a table with no cell spilled.
func tableFits(rows [][]string, width int, indent string) bool {
	cols := 0
	for _, r := range rows {
		cols = max(cols, len(r))
	}
	widths := make([]int, cols)
	for _, r := range rows {
		for i, c := range r {
			widths[i] = max(widths[i], ansi.StringWidth(c))
		}
	}
	total := len(indent) + 2*(cols-1)
	for _, w := range widths {
		total += w
	}
	return total < width
}

// costList lays /cost's table (a header row, then a row a model) out for a screen too
// narrow for its columns: a model a line, then its counts named, wrapped under it.
func costList(rows [][]string, width int) []string {
	var out []string
	head := rows[0]
	for _, r := range rows[1:] {
		out = append(out, "  "+r[0])
		var f []string
		for i := 1; i < len(r) && i < len(head); i++ {
			f = append(f, head[i]+" "+r[i])
		}
		out = append(out, wrap("    "+strings.Join(f, " · "), max(width-1, 20))...)
	}
	return out
}
