package web

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"unicode/utf8"

	"github.com/gantry-dev/gantry/internal/tool"
)

// render writes a successful fetch for the model: a one-line header (final URL, status,
// content type, size), the redirects and title when there are any, then the content
// bounded to max_chars, with notes for what was cut; all of it within maxOut
// characters. Content that is cut is saved whole (tool.SaveWhole) and its note says
// where.
func render(ctx context.Context, resp *http.Response, b *body, a fetchArgs, maxOut int) string {
	final := resp.Request.URL
	var head strings.Builder
	mt := b.mediaType
	if b.sniffed {
		mt += " (detected)"
	}
	fmt.Fprintf(&head, "%s · HTTP %s · %s · %s\n", final.Redacted(), resp.Status, mt, b.size())
	if chain := redirects(resp); chain != nil {
		fmt.Fprintf(&head, "Redirected %d time%s: %s\n", len(chain)-1, plural(len(chain)-1), chainLine(chain))
	}
	text, title := content(b, final, a.ExtractMode)
	if title != "" {
		fmt.Fprintf(&head, "Title: %s\n", tool.OneLine(title, 300))
	}
	head.WriteString("\n")
	var tail string
	if b.cut {
		tail = fmt.Sprintf("\n\n[The body went on past %s, the most web_fetch reads; the rest was not read.]", byteSize(b.limit))
	}
	// The content's share is what the header and the notes leave of the bound,
	// shrunk by what a longer note overshoots.
	fixed := utf8.RuneCountInString(head.String()) + utf8.RuneCountInString(tail)
	room := min(a.maxChars(maxOut), maxOut-fixed)
	saved := &savedPage{}
	for {
		grow := 0 // a larger max_chars would show more
		if a.MaxChars > 0 && a.MaxChars < maxOut-fixed {
			grow = maxOut - fixed
		}
		out := head.String() + boundHead(ctx, text, room, grow, a.ExtractMode, saved) + tail
		over := utf8.RuneCountInString(out) - maxOut
		if over <= 0 || room <= 0 {
			return tool.PrefixRunes(out, maxOut)
		}
		room -= over
	}
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

// savedPage is the whole content of a page that was cut, saved once however many
// times its note is written.
type savedPage struct {
	done bool
	path string
	err  error
}

func (p *savedPage) save(ctx context.Context, text string) (string, error) {
	if !p.done {
		p.path, p.err = tool.SaveWhole(ctx, text)
		p.done = true
	}
	return p.path, p.err
}

// boundHead keeps the first max characters of s, at a line end when one is near, and
// says what was cut and how to see more: the whole content is saved, and the note
// gives the file and the read_file call for the lines that follow. Not saved, it says
// how to see more: a larger max_chars, up to grow, when grow is not 0.
func boundHead(ctx context.Context, s string, limit, grow int, mode string, saved *savedPage) string {
	n := utf8.RuneCountInString(s)
	if n <= limit {
		return s
	}
	head := tool.PrefixRunes(s, max(limit, 0))
	if i := strings.LastIndexByte(head, '\n'); i > len(head)*4/5 {
		head = head[:i]
	}
	head = strings.TrimRight(head, "\n")
	shown := utf8.RuneCountInString(head)
	if path, err := saved.save(ctx, s); err == nil {
		// The head's last line is line next-1 when it is whole; the line the cut fell
		// in is read again whole.
		next := strings.Count(head, "\n") + 1
		if strings.HasPrefix(s[len(head):], "\n") {
			next++
		}
		return fmt.Sprintf("%s\n\n[… cut: showing the first %d of %d characters; the whole content is saved in %s: read on with read_file {\"path\": %q, \"start\": %d, \"end\": %d}, or search it with grep …]",
			head, shown, n, path, path, next, next+199)
	}
	unsaved := ""
	if _, err := saved.save(ctx, s); !errors.Is(err, tool.ErrNoOutputs) {
		unsaved = fmt.Sprintf(" the whole content could not be saved (%s);", tool.OneLine(err.Error(), 200))
	}
	more := "fetch a more specific page (a section or sub-page)"
	if grow > 0 {
		more = fmt.Sprintf("call web_fetch again with a larger max_chars (at most %d) or %s", grow, more)
	}
	if mode != "text" {
		more += `, or use extract_mode "text", which is shorter`
	}
	return fmt.Sprintf("%s\n\n[… cut: showing the first %d of %d characters;%s to see more, %s …]", head, shown, n, unsaved, more)
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
