package web

import (
	"regexp"
	"strings"
	"sync"

	"golang.org/x/net/html"
	"golang.org/x/net/html/atom"
)

// plainText renders the page as text without markup: blocks on their own lines,
// list items with a bullet, table cells separated by tabs, preformatted text kept.
func (p *page) plainText() string {
	w := &textWriter{}
	w.node(p.content)
	return tidy(w.b.String())
}

type textWriter struct {
	b     strings.Builder
	pre   int  // depth of <pre> elements around the current node
	space bool // a space is owed before the next word
}

// blockBreaks is how many line breaks surround each block element.
var blockBreaks = map[atom.Atom]int{
	atom.P: 2, atom.H1: 2, atom.H2: 2, atom.H3: 2, atom.H4: 2, atom.H5: 2, atom.H6: 2,
	atom.Pre: 2, atom.Blockquote: 2, atom.Table: 2, atom.Ul: 2, atom.Ol: 2, atom.Dl: 2,
	atom.Figure: 2, atom.Hr: 2, atom.Section: 2, atom.Article: 2, atom.Main: 2, atom.Header: 2,
	atom.Div: 1, atom.Li: 1, atom.Tr: 1, atom.Dt: 1, atom.Dd: 1, atom.Figcaption: 1,
	atom.Caption: 1, atom.Address: 1, atom.Details: 1, atom.Summary: 1, atom.Form: 1,
	atom.Fieldset: 1, atom.Legend: 1, atom.Body: 1,
}

func (w *textWriter) node(n *html.Node) {
	switch n.Type {
	case html.TextNode:
		w.text(n.Data)
		return
	case html.ElementNode, html.DocumentNode:
	default:
		return
	}
	breaks := blockBreaks[n.DataAtom]
	switch n.DataAtom {
	case atom.Br:
		w.breakLine(1)
		return
	case atom.Img:
		if alt := strings.TrimSpace(attr(n, "alt")); alt != "" {
			w.text("[" + alt + "]")
		}
		return
	case atom.Td, atom.Th:
		if !w.atLineStart() {
			w.b.WriteByte('\t')
			w.space = false
		}
	}
	w.breakLine(breaks)
	if n.DataAtom == atom.Li {
		w.b.WriteString("• ")
	}
	if n.DataAtom == atom.Pre {
		w.pre++
	}
	for c := n.FirstChild; c != nil; c = c.NextSibling {
		w.node(c)
	}
	if n.DataAtom == atom.Pre {
		w.pre--
	}
	w.breakLine(breaks)
}

// text writes a text node, collapsing white space outside <pre>.
func (w *textWriter) text(s string) {
	if w.pre > 0 {
		w.b.WriteString(s)
		w.space = false
		return
	}
	words := strings.Fields(s)
	if len(words) == 0 {
		if s != "" {
			w.space = true
		}
		return
	}
	if (w.space || startsWithSpace(s)) && !w.atLineStart() {
		w.b.WriteByte(' ')
	}
	w.b.WriteString(strings.Join(words, " "))
	w.space = endsWithSpace(s)
}

// breakLine ends the current line so that n line breaks end the text (n = 0: none).
func (w *textWriter) breakLine(n int) {
	if n == 0 {
		return
	}
	w.space = false
	if w.b.Len() == 0 {
		return
	}
	s := w.b.String()
	have := len(s) - len(strings.TrimRight(s, "\n"))
	for ; have < n; have++ {
		w.b.WriteByte('\n')
	}
}

func (w *textWriter) atLineStart() bool {
	s := w.b.String()
	return s == "" || strings.HasSuffix(s, "\n") || strings.HasSuffix(s, "\t")
}

func startsWithSpace(s string) bool { return s != "" && strings.TrimLeft(s, " \t\r\n\f") != s }
func endsWithSpace(s string) bool   { return s != "" && strings.TrimRight(s, " \t\r\n\f") != s }

var (
	trailingBlanks = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`[ \t]+\n`) })
	manyBreaks     = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`\n{3,}`) })
)

// tidy trims the trailing blanks of lines and keeps at most one empty line in a row.
func tidy(s string) string {
	s = trailingBlanks().ReplaceAllString(s, "\n")
	s = manyBreaks().ReplaceAllString(s, "\n\n")
	return strings.TrimSpace(s)
}
