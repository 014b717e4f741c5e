package web

import (
	"net/url"
	"strings"

	htmltomarkdown "github.com/JohannesKaufmann/html-to-markdown/v2/converter"
	"github.com/JohannesKaufmann/html-to-markdown/v2/plugin/base"
	"github.com/JohannesKaufmann/html-to-markdown/v2/plugin/commonmark"
	"github.com/JohannesKaufmann/html-to-markdown/v2/plugin/strikethrough"
	"github.com/JohannesKaufmann/html-to-markdown/v2/plugin/table"
	"golang.org/x/net/html"
	"golang.org/x/net/html/atom"
)

// page is an HTML document made ready for rendering: its title, the base its links
// resolve against, and the node that holds its content, noise removed.
type page struct {
	title   string
	base    string
	content *html.Node
}

// parsePage parses an HTML document fetched from final.
func parsePage(src string, final *url.URL) *page {
	noUser := *final // links resolved against the page must not carry its credentials
	noUser.User = nil
	final = &noUser
	doc, err := html.Parse(strings.NewReader(src))
	if err != nil { // html.Parse fails only on reader errors
		doc = &html.Node{Type: html.DocumentNode}
	}
	p := &page{base: final.String()}
	walk(doc, func(n *html.Node) bool {
		switch n.DataAtom {
		case atom.Title:
			if p.title == "" {
				p.title = strings.Join(strings.Fields(textOf(n)), " ")
			}
		case atom.Base:
			if href := attr(n, "href"); href != "" {
				if ref, err := url.Parse(strings.TrimSpace(href)); err == nil {
					p.base = final.ResolveReference(ref).String()
				}
			}
		}
		return true
	})
	p.content = mainContent(doc)
	prune(p.content)
	return p
}

// markdown renders the page as Markdown, links and images made absolute.
func (p *page) markdown() (string, error) {
	conv := htmltomarkdown.NewConverter(htmltomarkdown.WithPlugins(
		base.NewBasePlugin(),
		commonmark.NewCommonmarkPlugin(),
		table.NewTablePlugin(table.WithSkipEmptyRows(true)),
		strikethrough.NewStrikethroughPlugin(),
	))
	out, err := conv.ConvertNode(p.content, htmltomarkdown.WithDomain(p.base))
	if err != nil {
		return "", err
	}
	return string(out), nil
}

// mainContent returns the part of a document that holds its content: its <main> (or
// role=main), else its only <article>, else the whole document.
func mainContent(doc *html.Node) *html.Node {
	var main *html.Node
	var articles []*html.Node
	walk(doc, func(n *html.Node) bool {
		if main != nil {
			return false
		}
		if n.DataAtom == atom.Main || (n.Type == html.ElementNode && attr(n, "role") == "main") {
			main = n
			return false
		}
		if n.DataAtom == atom.Article {
			articles = append(articles, n)
			return false
		}
		return true
	})
	switch {
	case main != nil && strings.TrimSpace(textOf(main)) != "":
		return main
	case len(articles) == 1 && strings.TrimSpace(textOf(articles[0])) != "":
		return articles[0]
	}
	return doc
}

// noise are the elements that never hold a page's content.
var noise = map[atom.Atom]bool{
	atom.Head: true, atom.Script: true, atom.Style: true, atom.Noscript: true, atom.Template: true,
	atom.Svg: true, atom.Canvas: true, atom.Iframe: true, atom.Object: true,
	atom.Embed: true, atom.Nav: true, atom.Aside: true, atom.Footer: true, atom.Dialog: true,
	atom.Button: true, atom.Input: true, atom.Select: true, atom.Textarea: true, atom.Link: true,
	atom.Meta: true, atom.Audio: true, atom.Video: true, atom.Map: true,
}

// noiseRoles are the ARIA landmarks of navigation and page chrome.
var noiseRoles = map[string]bool{
	"navigation": true, "banner": true, "contentinfo": true, "complementary": true,
	"search": true, "menu": true, "menubar": true, "dialog": true, "alert": true,
}

// prune removes scripts, styles, navigation, page chrome and hidden elements from
// root, drops inline data: images and javascript: links.
func prune(root *html.Node) {
	var drop []*html.Node
	var visit func(n *html.Node, inContent bool)
	visit = func(n *html.Node, inContent bool) {
		for c := n.FirstChild; c != nil; c = c.NextSibling {
			switch c.Type {
			case html.CommentNode:
				drop = append(drop, c)
				continue
			case html.ElementNode:
			default:
				continue
			}
			if isNoise(c, inContent) {
				drop = append(drop, c)
				continue
			}
			switch c.DataAtom {
			case atom.Img:
				if src := strings.TrimSpace(attr(c, "src")); strings.HasPrefix(strings.ToLower(src), "data:") || src == "" {
					drop = append(drop, c)
					continue
				}
			case atom.A:
				if strings.HasPrefix(strings.ToLower(strings.TrimSpace(attr(c, "href"))), "javascript:") {
					removeAttr(c, "href")
				}
			}
			visit(c, inContent || c.DataAtom == atom.Article || c.DataAtom == atom.Main || c.DataAtom == atom.Section)
		}
	}
	visit(root, root.DataAtom == atom.Article || root.DataAtom == atom.Main)
	for _, n := range drop {
		n.Parent.RemoveChild(n)
	}
}

func isNoise(n *html.Node, inContent bool) bool {
	if noise[n.DataAtom] {
		return true
	}
	if n.DataAtom == atom.Header && !inContent {
		return true
	}
	if noiseRoles[strings.ToLower(attr(n, "role"))] {
		return true
	}
	if hasAttr(n, "hidden") || strings.EqualFold(attr(n, "aria-hidden"), "true") {
		return true
	}
	style := strings.ReplaceAll(strings.ToLower(attr(n, "style")), " ", "")
	return strings.Contains(style, "display:none") || strings.Contains(style, "visibility:hidden")
}

// walk visits n and its descendants in document order; visit returns false to skip
// the children of a node.
func walk(n *html.Node, visit func(*html.Node) bool) {
	if !visit(n) {
		return
	}
	for c := n.FirstChild; c != nil; c = c.NextSibling {
		walk(c, visit)
	}
}

// textOf returns the text under n, as it is in the source.
func textOf(n *html.Node) string {
	var b strings.Builder
	walk(n, func(c *html.Node) bool {
		if c.Type == html.TextNode {
			b.WriteString(c.Data)
		}
		return c.DataAtom != atom.Script && c.DataAtom != atom.Style
	})
	return b.String()
}

func attr(n *html.Node, key string) string {
	for _, a := range n.Attr {
		if a.Namespace == "" && a.Key == key {
			return a.Val
		}
	}
	return ""
}

func hasAttr(n *html.Node, key string) bool {
	for _, a := range n.Attr {
		if a.Namespace == "" && a.Key == key {
			return true
		}
	}
	return false
}

func removeAttr(n *html.Node, key string) {
	out := n.Attr[:0]
	for _, a := range n.Attr {
		if a.Key != key {
			out = append(out, a)
		}
	}
	n.Attr = out
}
