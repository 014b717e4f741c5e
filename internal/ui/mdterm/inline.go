package mdterm

import (
	"strings"

	"github.com/yuin/goldmark/ast"
	east "github.com/yuin/goldmark/extension/ast"
)

// inliner turns inline nodes into styled fragments of text.
type inliner struct {
	src   []byte
	color bool
	table bool // in a table cell, where "\|" stands for "|"
	frags []frag
}

func (in *inliner) add(s string, st style) {
	if s != "" {
		in.frags = append(in.frags, frag{text: s, st: st})
	}
}

// withColor returns st with its colour replaced by c.
func withColor(st, c style) style { return st&^colorMask | c }

// walk adds the inline children of n in style st.
func (in *inliner) walk(n ast.Node, st style) {
	for c := n.FirstChild(); c != nil; c = c.NextSibling() {
		switch c := c.(type) {
		case *ast.Text:
			in.add(unescape(c.Segment.Value(in.src), c.IsRaw()), st)
			switch {
			case c.HardLineBreak():
				in.frags = append(in.frags, frag{brk: true})
			case c.SoftLineBreak():
				in.add(" ", st)
			}
		case *ast.String:
			in.add(unescape(c.Value, c.IsRaw()), st)
		case *ast.CodeSpan:
			in.codeSpan(c, st)
		case *ast.Emphasis:
			if c.Level >= 2 {
				in.walk(c, st|bold)
			} else {
				in.walk(c, st|italic)
			}
		case *east.Strikethrough:
			in.walk(c, st|strike)
		case *ast.Link:
			in.link(c, st)
		case *ast.AutoLink:
			in.add(clean(string(c.Label(in.src))), withColor(st, cLink)|underline)
		case *ast.Image:
			alt := strings.TrimSpace(plainText(c, in.src))
			label := "[image]"
			if alt != "" {
				label = "[image: " + alt + "]"
			}
			in.add(label, withColor(st, cLink))
			if dest := unescape(c.Destination, false); dest != "" {
				in.add(" ", st)
				in.add("("+dest+")", st|faint)
			}
		case *ast.RawHTML:
			for i := 0; i < c.Segments.Len(); i++ {
				seg := c.Segments.At(i)
				in.add(clean(string(seg.Value(in.src))), st)
			}
		case *east.TaskCheckBox:
			if c.IsChecked {
				in.add("[x]", withColor(st, cAdded))
			} else {
				in.add("[ ]", withColor(st, cMarker))
			}
			in.add(" ", st)
		default:
			in.walk(c, st)
		}
	}
}

func (in *inliner) codeSpan(n *ast.CodeSpan, st style) {
	var b strings.Builder
	for c := n.FirstChild(); c != nil; c = c.NextSibling() {
		if t, ok := c.(*ast.Text); ok {
			b.Write(t.Segment.Value(in.src))
		}
	}
	code := clean(b.String())
	if in.table {
		code = strings.ReplaceAll(code, `\|`, "|")
	}
	if in.color {
		in.add(code, withColor(st, cCode))
	} else {
		in.add("`"+code+"`", st)
	}
}

// link adds a link as its text followed by its address in brackets, unless
// the text is the address.
func (in *inliner) link(n *ast.Link, st style) {
	start := len(in.frags)
	in.walk(n, withColor(st, cLink)|underline)
	var label strings.Builder
	for _, f := range in.frags[start:] {
		label.WriteString(f.text)
	}
	text := strings.TrimSpace(label.String())
	dest := unescape(n.Destination, false)
	if dest == "" || dest == text || dest == "mailto:"+text ||
		strings.TrimSuffix(dest, "/") == strings.TrimSuffix(text, "/") {
		return
	}
	if text != "" {
		in.add(" ", st)
	}
	in.add("("+dest+")", st|faint)
}
