package mdterm

import (
	"strings"

	"github.com/yuin/goldmark/ast"
	east "github.com/yuin/goldmark/extension/ast"
)

// cell is a rendered table cell: its text on one line and its width.
type cell struct {
	frags []frag
	s     string
	w     int
}

// table renders a table with columns padded to their widest cell, or, when
// that is wider than width, each row as a block of "header: value" lines.
func (r *renderer) table(n *east.Table, width int, out []line) []line {
	var rows [][]cell
	ncol := len(n.Alignments)
	for row := n.FirstChild(); row != nil; row = row.NextSibling() {
		st := style(0)
		if _, ok := row.(*east.TableHeader); ok {
			st = bold
		}
		var cells []cell
		for c := row.FirstChild(); c != nil; c = c.NextSibling() {
			cells = append(cells, r.cell(c, st))
		}
		ncol = max(ncol, len(cells))
		rows = append(rows, cells)
	}
	if len(rows) == 0 || ncol == 0 {
		return out
	}
	colW := make([]int, ncol)
	for _, cells := range rows {
		for i, c := range cells {
			colW[i] = max(colW[i], c.w)
		}
	}
	total := 3 * (ncol - 1)
	for _, w := range colW {
		total += w
	}
	if total > width {
		return r.tableBlocks(rows, width, out)
	}
	sep, cross, dash := " | ", "-+-", "-"
	if r.color {
		sep = " " + paint("│", faint, true) + " "
		cross, dash = "─┼─", "─"
	}
	for i, cells := range rows {
		var b strings.Builder
		for j := range ncol {
			if j > 0 {
				b.WriteString(sep)
			}
			c := cell{}
			if j < len(cells) {
				c = cells[j]
			}
			align := east.AlignNone
			if j < len(n.Alignments) {
				align = n.Alignments[j]
			}
			pad := colW[j] - c.w
			switch align {
			case east.AlignRight:
				b.WriteString(strings.Repeat(" ", pad))
				b.WriteString(c.s)
			case east.AlignCenter:
				b.WriteString(strings.Repeat(" ", pad/2))
				b.WriteString(c.s)
				b.WriteString(strings.Repeat(" ", pad-pad/2))
			default:
				b.WriteString(c.s)
				b.WriteString(strings.Repeat(" ", pad))
			}
		}
		out = append(out, line{s: strings.TrimRight(b.String(), " ")})
		if i == 0 {
			rule := make([]string, ncol)
			for j, w := range colW {
				rule[j] = strings.Repeat(dash, w)
			}
			out = append(out, line{s: paint(strings.Join(rule, cross), faint, r.color)})
		}
	}
	return out
}

// cell renders the inline text of a table cell on one line.
func (r *renderer) cell(n ast.Node, st style) cell {
	frags := r.inline(n, st, true)
	for i := range frags {
		if frags[i].brk {
			frags[i] = frag{text: " "}
		}
	}
	lb := lineBuilder{color: r.color}
	ws, pieces := words(frags)
	for _, w := range ws {
		if w.brk {
			continue
		}
		parts := pieces[w.p0:w.p1]
		if w.sp && lb.w > 0 {
			lb.space(parts[0].st)
		}
		lb.addWord(parts)
	}
	w := lb.w
	return cell{frags: frags, s: lb.done(), w: w}
}

// tableBlocks renders each body row as "header: value" lines, wrapped, with
// a blank line between rows.
func (r *renderer) tableBlocks(rows [][]cell, width int, out []line) []line {
	header := rows[0]
	body := rows[1:]
	if len(body) == 0 {
		body, header = rows, nil
	}
	start := len(out)
	for _, cells := range body {
		rowStart := len(out)
		if len(out) > start {
			out = append(out, line{})
		}
		for j, c := range cells {
			var frags []frag
			if j < len(header) && header[j].w > 0 {
				frags = append(frags, header[j].frags...)
				frags = append(frags, frag{text: ":", st: bold})
				if c.w > 0 {
					frags = append(frags, frag{text: " "})
				}
			} else if c.w == 0 {
				continue
			}
			frags = append(frags, c.frags...)
			hang := 2
			if width-hang < minWidth {
				hang = 0
			}
			for k, s := range wrapHang(frags, width, width-hang, r.color) {
				if k > 0 {
					s = strings.Repeat(" ", hang) + s
				}
				out = append(out, line{s: s})
			}
		}
		if len(out) == rowStart+1 && out[rowStart].s == "" {
			out = out[:rowStart] // a row with nothing to show
		}
	}
	return out
}
