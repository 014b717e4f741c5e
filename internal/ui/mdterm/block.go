package mdterm

import (
	"strconv"
	"strings"

	"github.com/yuin/goldmark/ast"
	east "github.com/yuin/goldmark/extension/ast"
)

// minWidth is the narrowest text that nested blocks indent to; deeper,
// lists and quotes stop indenting so no line gets wider than the width.
const minWidth = 8

// codeIndent is put before the lines of code blocks.
const codeIndent = "  "

// renderer renders the blocks of a parsed document.
type renderer struct {
	src   []byte
	color bool
}

// blocks appends the children of n rendered, one blank line between them
// unless tight.
func (r *renderer) blocks(n ast.Node, width int, tight bool, out []line) []line {
	start := len(out)
	for c := n.FirstChild(); c != nil; c = c.NextSibling() {
		mark := len(out)
		if len(out) > start && !tight {
			out = append(out, line{})
		}
		before := len(out)
		out = r.block(c, width, out)
		if len(out) == before {
			out = out[:mark] // nothing shown: no blank line either
		}
	}
	return out
}

// block appends one block rendered for width columns.
func (r *renderer) block(n ast.Node, width int, out []line) []line {
	switch n := n.(type) {
	case *ast.Paragraph, *ast.TextBlock:
		return r.paragraph(n, width, out)
	case *ast.Heading:
		return r.heading(n, width, out)
	case *ast.ThematicBreak:
		return append(out, line{s: r.rule(width)})
	case *ast.FencedCodeBlock:
		lang := ""
		if n.Info != nil {
			lang = string(n.Language(r.src))
		}
		return r.code(n, lang, out)
	case *ast.CodeBlock:
		return r.code(n, "", out)
	case *ast.Blockquote:
		return r.quote(n, width, out)
	case *ast.List:
		return r.list(n, width, out)
	case *ast.HTMLBlock:
		return r.html(n, width, out)
	case *east.Table:
		return r.table(n, width, out)
	}
	return r.blocks(n, width, false, out)
}

// inline returns the styled text of the inline children of n.
func (r *renderer) inline(n ast.Node, st style, table bool) []frag {
	in := inliner{src: r.src, color: r.color, table: table}
	in.walk(n, st)
	return in.frags
}

func (r *renderer) paragraph(n ast.Node, width int, out []line) []line {
	return appendLines(out, wrap(r.inline(n, 0, false), width, r.color))
}

func appendLines(out []line, ss []string) []line {
	for _, s := range ss {
		out = append(out, line{s: s})
	}
	return out
}

// heading renders a heading in bold; H1 and H2 are underlined (in plain text,
// by a line of "=" or "-").
func (r *renderer) heading(n *ast.Heading, width int, out []line) []line {
	st := bold | cAccent
	if n.Level <= 2 && r.color {
		st |= underline
	}
	frags := r.inline(n, st, false)
	for i := range frags {
		frags[i].brk = false // no hard breaks in headings
	}
	ss := wrap(frags, width, r.color)
	if n.Level <= 2 && !r.color && len(ss) > 0 {
		w := 0
		for _, s := range ss {
			w = max(w, strWidth(s))
		}
		mark := "-"
		if n.Level == 1 {
			mark = "="
		}
		ss = append(ss, strings.Repeat(mark, w))
	}
	return appendLines(out, ss)
}

// rule is a horizontal line across the width.
func (r *renderer) rule(width int) string {
	if !r.color {
		return strings.Repeat("-", width)
	}
	return paint(strings.Repeat("─", width), faint, true)
}

// code renders a code block, not wrapped, highlighted if the language is known.
func (r *renderer) code(n ast.Node, lang string, out []line) []line {
	var b strings.Builder
	segs := n.Lines()
	for i := 0; i < segs.Len(); i++ {
		seg := segs.At(i)
		b.Write(seg.Value(r.src))
	}
	src := expandTabs(b.String())
	if strings.TrimSpace(src) == "" {
		return out
	}
	if r.color {
		src = highlight(lang, src)
	}
	for s := range strings.SplitSeq(src, "\n") {
		if s != "" {
			s = codeIndent + s
		}
		out = append(out, line{s: s, code: true})
	}
	return out
}

// expandTabs replaces tabs by spaces to the next multiple of 4 columns,
// trims the spaces at line ends and the blank lines at the end.
func expandTabs(s string) string {
	var b strings.Builder
	b.Grow(len(s))
	for ln := range strings.Lines(s) {
		ln = strings.TrimRight(ln, " \t\n")
		col := 0
		for {
			i := strings.IndexByte(ln, '\t')
			if i < 0 {
				break
			}
			b.WriteString(ln[:i])
			col += strWidth(ln[:i])
			n := 4 - col%4
			b.WriteString("    "[:n])
			col += n
			ln = ln[i+1:]
		}
		b.WriteString(ln)
		b.WriteByte('\n')
	}
	return strings.TrimRight(b.String(), "\n")
}

// prefix puts first before the first line and rest before the others; blank
// lines get the prefix without its trailing spaces. The prefixes are painted
// in st.
func (r *renderer) prefix(ls []line, first, rest string, st style) {
	firstP := paint(first, st, r.color)
	restP := paint(rest, st, r.color)
	restBlank := paint(strings.TrimRight(rest, " "), st, r.color)
	for i := range ls {
		p, blank := restP, restBlank
		if i == 0 {
			p, blank = firstP, paint(strings.TrimRight(first, " "), st, r.color)
		}
		if ls[i].s == "" {
			ls[i].s = blank
		} else {
			ls[i].s = p + ls[i].s
		}
	}
}

func (r *renderer) quote(n *ast.Blockquote, width int, out []line) []line {
	if width-2 < minWidth {
		return r.blocks(n, width, false, out)
	}
	bar := "│ "
	if !r.color {
		bar = "> "
	}
	start := len(out)
	out = r.blocks(n, width-2, false, out)
	r.prefix(out[start:], bar, bar, faint)
	return out
}

func (r *renderer) list(n *ast.List, width int, out []line) []line {
	count := 0
	for c := n.FirstChild(); c != nil; c = c.NextSibling() {
		count++
	}
	numW := 0
	if n.IsOrdered() {
		numW = len(strconv.Itoa(n.Start + count - 1))
	}
	i := 0
	first := len(out)
	for c := n.FirstChild(); c != nil; c = c.NextSibling() {
		marker := "• "
		if n.IsOrdered() {
			num := strconv.Itoa(n.Start + i)
			marker = strings.Repeat(" ", numW-len(num)) + num + string(n.Marker) + " "
		}
		i++
		if len(out) > first && !n.IsTight {
			out = append(out, line{})
		}
		mw := strWidth(marker)
		if width-mw < minWidth {
			// Too narrow to indent: the marker on a line of its own.
			frags := []frag{{text: strings.TrimSpace(marker), st: cMarker}}
			out = appendLines(out, wrap(frags, width, r.color))
			out = r.blocks(c, width, n.IsTight, out)
			continue
		}
		start := len(out)
		out = r.blocks(c, width-mw, n.IsTight, out)
		if len(out) == start {
			out = append(out, line{})
		}
		r.prefix(out[start:], marker, strings.Repeat(" ", mw), cMarker)
	}
	return out
}

// html shows an HTML block as text, each of its lines wrapped.
func (r *renderer) html(n *ast.HTMLBlock, width int, out []line) []line {
	start := len(out)
	add := func(s string) {
		s = clean(strings.TrimRight(s, " \t\r\n"))
		if strings.TrimSpace(s) == "" {
			if len(out) > start && out[len(out)-1].s != "" {
				out = append(out, line{})
			}
			return
		}
		out = appendLines(out, wrap([]frag{{text: s}}, width, r.color))
	}
	segs := n.Lines()
	for i := 0; i < segs.Len(); i++ {
		seg := segs.At(i)
		add(string(seg.Value(r.src)))
	}
	if n.HasClosure() {
		add(string(n.ClosureLine.Value(r.src)))
	}
	for len(out) > start && out[len(out)-1].s == "" {
		out = out[:len(out)-1]
	}
	return out
}
