// Package mdterm renders Markdown for the terminal: word-wrapped paragraphs,
// headings, lists, block quotes, tables and code blocks with a small built-in
// syntax highlighter, in colour (lipgloss styles) or as plain text.
//
// It parses with goldmark's CommonMark parser plus its own small GFM parts
// (tables, strikethrough, task lists) so that loading the package costs
// little: it builds no tables or regular expressions when the program starts,
// and it does not link text/template, html/template, glamour or chroma.
package mdterm

import (
	"strings"
	"sync"

	"github.com/yuin/goldmark/ast"
	"github.com/yuin/goldmark/parser"
	"github.com/yuin/goldmark/text"
	"github.com/yuin/goldmark/util"
)

// Options say how to render.
type Options struct {
	// Width is the width of the terminal in columns; below 20 counts as 20,
	// and 0 as 80.
	Width int
	// Color turns on colours and text attributes; off, the output is plain
	// text without escape sequences (NO_COLOR).
	Color bool
}

// indent is put before every line of the output.
const indent = "  "

// Render returns markdown rendered for a terminal, indented by two spaces,
// without blank lines at either end and without trailing spaces on any line.
// It never fails: on any unexpected trouble it returns the text as wrapped
// paragraphs.
func Render(markdown string, o Options) (out string) {
	defer func() {
		if recover() != nil {
			out = fallback(markdown, o)
		}
	}()
	return join(render(markdown, o))
}

// line is one line of output, without the indent. Code lines may be wider
// than the width.
type line struct {
	s    string
	code bool
}

// render renders markdown into lines.
func render(markdown string, o Options) []line {
	o.Width = width(o.Width)
	src := []byte(sanitize(markdown))
	doc := mdParser().Parse(text.NewReader(src))
	r := &renderer{src: src, color: o.Color}
	return r.blocks(doc, o.Width-len(indent), false, nil)
}

func width(w int) int {
	switch {
	case w <= 0:
		return 80
	case w < 20:
		return 20
	}
	return w
}

// join indents the lines and joins them, dropping blank lines at both ends.
func join(lines []line) string {
	for len(lines) > 0 && lines[0].s == "" {
		lines = lines[1:]
	}
	for len(lines) > 0 && lines[len(lines)-1].s == "" {
		lines = lines[:len(lines)-1]
	}
	n := 0
	for _, l := range lines {
		n += len(l.s) + len(indent) + 1
	}
	var b strings.Builder
	b.Grow(n)
	for i, l := range lines {
		if i > 0 {
			b.WriteByte('\n')
		}
		if l.s != "" {
			b.WriteString(indent)
			b.WriteString(l.s)
		}
	}
	return b.String()
}

// fallback renders markdown as plain wrapped paragraphs.
func fallback(markdown string, o Options) string {
	w := width(o.Width) - len(indent)
	var lines []line
	for _, p := range strings.Split(sanitize(markdown), "\n\n") {
		words := strings.Fields(p)
		if len(words) == 0 {
			continue
		}
		if len(lines) > 0 {
			lines = append(lines, line{})
		}
		frags := []frag{{text: strings.Join(words, " ")}}
		for _, s := range wrap(frags, w, false) {
			lines = append(lines, line{s: s})
		}
	}
	return join(lines)
}

// mdParser is the Markdown parser, made on first use.
var mdParser = sync.OnceValue(func() parser.Parser {
	return parser.NewParser(
		parser.WithBlockParsers(parser.DefaultBlockParsers()...),
		parser.WithInlineParsers(append(parser.DefaultInlineParsers(),
			util.Prioritized(taskCheckBoxParser{}, 0),
			util.Prioritized(strikethroughParser{}, 500))...),
		parser.WithParagraphTransformers(append(parser.DefaultParagraphTransformers(),
			util.Prioritized(tableTransformer{}, 200))...),
	)
})

// plainText returns the text of the inline nodes under n, without styles.
func plainText(n ast.Node, src []byte) string {
	var b strings.Builder
	_ = ast.Walk(n, func(c ast.Node, entering bool) (ast.WalkStatus, error) {
		if !entering {
			return ast.WalkContinue, nil
		}
		switch c := c.(type) {
		case *ast.Text:
			b.WriteString(unescape(c.Segment.Value(src), c.IsRaw()))
			if c.SoftLineBreak() || c.HardLineBreak() {
				b.WriteByte(' ')
			}
		case *ast.String:
			b.WriteString(unescape(c.Value, c.IsRaw()))
		case *ast.AutoLink:
			b.WriteString(clean(string(c.Label(src))))
		case *ast.RawHTML:
			for i := 0; i < c.Segments.Len(); i++ {
				s := c.Segments.At(i)
				b.WriteString(clean(string(s.Value(src))))
			}
		}
		return ast.WalkContinue, nil
	})
	return b.String()
}
