package web

import (
	"fmt"
	"github.com/gantry-dev/gantry/internal/tool"
	"net/http"
	"net/url"
	"strings"
	"unicode/utf8"
)

// render writes a successful fetch for the model: a one-line header (final URL, status,
// content type, size), the redirects and title when there are any, then the content
// bounded to max_chars, with notes for what was cut.
func render(resp *http.Response, b *body, a fetchArgs) string {
	final := resp.Request.URL
	var out strings.Builder
	mt := b.mediaType
	if b.sniffed {
		mt += " (detected)"
	}
	fmt.Fprintf(&out, "%s · HTTP %s · %s · %s\n", final.Redacted(), resp.Status, mt, b.size())
	if chain := redirects(resp); chain != nil {
		fmt.Fprintf(&out, "Redirected %d time%s: %s\n", len(chain)-1, plural(len(chain)-1), chainLine(chain))
	}
	text, title := content(b, final, a.ExtractMode)
	if title != "" {
		fmt.Fprintf(&out, "Title: %s\n", title)
	}
	out.WriteString("\n")
	out.WriteString(boundHead(text, a.maxChars(), a.ExtractMode))
	if b.cut {
		fmt.Fprintf(&out, "\n\n[The body went on past %s, the most web_fetch reads; the rest was not read.]", byteSize(b.limit))
	}
	return out.String()
}

// content renders the body as the mode asks and returns it with the page's title.
func content(b *body, final *url.URL, mode string) (text, title string) {
	switch b.kind {
	case kindBinary:
		return fmt.Sprintf("This is binary content (%s, %s), not shown: web_fetch returns text only. Download it with the shell (curl -o FILE URL) to work with it.", b.mediaType, b.size()), ""
	case kindHTML:
		p := parsePage(b.text, final)
		if mode == "text" {
			text = p.plainText()
		} else if md, err := p.markdown(); err == nil {
			text = md
		} else {
			text = p.plainText() + fmt.Sprintf("\n\n[The page could not be converted to Markdown (%v), so it is shown as plain text.]", err)
		}
		title = p.title
	default:
		text = strings.TrimSpace(b.text)
	}
	if strings.TrimSpace(text) == "" {
		text = "(The page has no text content.)"
	}
	return text, title
}

// boundHead keeps the first max characters of s, at a line end when one is near, and
// says what was cut and how to see more.
func boundHead(s string, max int, mode string) string {
	n := utf8.RuneCountInString(s)
	if n <= max {
		return s
	}
	head := tool.PrefixRunes(s, max)
	if i := strings.LastIndexByte(head, '\n'); i > len(head)*4/5 {
		head = head[:i]
	}
	shown := utf8.RuneCountInString(head)
	var more string
	switch {
	case max < MaxMaxChars:
		more = fmt.Sprintf("call web_fetch again with a larger max_chars (at most %d)", MaxMaxChars)
		if n > MaxMaxChars {
			more += " or fetch a more specific page"
		}
	default:
		more = "fetch a more specific page (a section or sub-page)"
	}
	if mode != "text" {
		more += `, or use extract_mode "text", which is shorter`
	}
	return fmt.Sprintf("%s\n\n[… cut: showing the first %d of %d characters; to see more, %s …]", strings.TrimRight(head, "\n"), shown, n, more)
}

// statusFailure is the error for an HTTP 4xx or 5xx answer: the status, a hint, and the
// first lines of the body when it is text.
func statusFailure(resp *http.Response, b *body) string {
	msg := fmt.Sprintf("web_fetch got HTTP %s from %s", resp.Status, resp.Request.URL.Redacted())
	switch code := resp.StatusCode; {
	case code == http.StatusUnauthorized:
		msg += ": the page needs credentials (give them in authorization or headers)."
	case code == http.StatusForbidden:
		msg += ": the server refuses access to this page."
	case code == http.StatusNotFound || code == http.StatusGone:
		msg += ": there is no page at that address."
	case code == http.StatusTooManyRequests:
		msg += ": too many requests; wait before trying again"
		if ra := resp.Header.Get("Retry-After"); ra != "" {
			msg += " (Retry-After: " + ra + ")"
		}
		msg += "."
	case code >= 500:
		msg += ": the server failed; try again later."
	default:
		msg += "."
	}
	if ex := excerpt(b, resp.Request.URL); ex != "" {
		msg += "\nThe server said:\n" + ex
	}
	return msg
}

// excerpt returns the first few lines of a text body, bounded.
func excerpt(b *body, final *url.URL) string {
	var text string
	switch b.kind {
	case kindHTML:
		text = parsePage(b.text, final).plainText()
	case kindText:
		text = b.text
	default:
		return ""
	}
	var lines []string
	total := 0
	for line := range strings.Lines(text) {
		line = strings.TrimSpace(line)
		if line == "" {
			continue
		}
		if utf8.RuneCountInString(line) > 200 {
			line = tool.PrefixRunes(line, 200) + "…"
		}
		lines = append(lines, line)
		total += len(line)
		if len(lines) == 8 || total > 800 {
			break
		}
	}
	return strings.Join(lines, "\n")
}

func plural(n int) string {
	if n == 1 {
		return ""
	}
	return "s"
}
