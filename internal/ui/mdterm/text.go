package mdterm

import (
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/charmbracelet/x/ansi"
	"github.com/yuin/goldmark/util"
)

// sanitize makes the source safe to print: it turns line endings into "\n",
// replaces invalid UTF-8 and drops control characters other than tab and
// newline, so no escape sequence from the text reaches the terminal.
func sanitize(s string) string {
	ok := true
	for i := 0; i < len(s); i++ {
		if c := s[i]; (c < 0x20 && c != '\n' && c != '\t') || c >= 0x7f {
			ok = false
			break
		}
	}
	if ok {
		return s
	}
	var b strings.Builder
	b.Grow(len(s))
	start := 0 // of the text not yet written
	for i := 0; i < len(s); {
		c := s[i]
		if c >= 0x20 && c < 0x7f || c == '\n' || c == '\t' {
			i++
			continue
		}
		n := 1
		repl := ""
		switch {
		case c == '\r':
			repl = "\n"
			if i+1 < len(s) && s[i+1] == '\n' {
				n = 2
			}
		case c >= utf8.RuneSelf:
			r, size := utf8.DecodeRuneInString(s[i:])
			n = size
			switch {
			case r == utf8.RuneError && size == 1:
				repl = "\uFFFD"
			case r >= 0x80 && r < 0xa0:
				// C1 controls (0x9b is CSI on some terminals): dropped.
			default:
				i += size
				continue
			}
		}
		b.WriteString(s[start:i])
		b.WriteString(repl)
		i += n
		start = i
	}
	b.WriteString(s[start:])
	return b.String()
}

// clean drops control characters from inline text (entities may make them)
// and turns tabs into spaces.
func clean(s string) string {
	ok := true
	for i := 0; i < len(s); i++ {
		if c := s[i]; c < 0x20 || c == 0x7f || c == 0xc2 {
			ok = false
			break
		}
	}
	if ok {
		return s
	}
	return strings.Map(func(r rune) rune {
		switch {
		case r == '\t' || r == '\n':
			return ' '
		case r < 0x20 || (r >= 0x7f && r < 0xa0):
			return -1
		}
		return r
	}, s)
}

// unescape resolves backslash escapes and entity references of inline text
// (not of raw text, as in code spans).
func unescape(b []byte, raw bool) string {
	if raw {
		return clean(string(b))
	}
	i := 0
	for i < len(b) && b[i] != '\\' && b[i] != '&' {
		i++
	}
	if i == len(b) {
		return clean(string(b))
	}
	var out strings.Builder
	out.Grow(len(b))
	out.Write(b[:i])
	for ; i < len(b); i++ {
		c := b[i]
		switch {
		case c == '\\' && i+1 < len(b) && util.IsPunct(b[i+1]):
			i++
			out.WriteByte(b[i])
			continue
		case c == '&':
			if n := entityEnd(b[i:]); n > 0 {
				ent := b[i : i+n]
				res := util.ResolveNumericReferences(util.ResolveEntityNames(ent))
				out.Write(res)
				i += n - 1
				continue
			}
		}
		out.WriteByte(c)
	}
	return clean(out.String())
}

// entityEnd returns the length of the entity reference at the start of b
// ("&name;", "&#123;", "&#x1f;"), or 0.
func entityEnd(b []byte) int {
	for j := 1; j < len(b) && j < 40; j++ {
		c := b[j]
		switch {
		case c == ';':
			if j == 1 {
				return 0
			}
			return j + 1
		case c == '#' && j == 1:
		case c >= '0' && c <= '9', c >= 'a' && c <= 'z', c >= 'A' && c <= 'Z':
		default:
			return 0
		}
	}
	return 0
}

// strWidth is the display width of s (which has no escape sequences).
func strWidth(s string) int {
	for i := 0; i < len(s); i++ {
		if s[i] >= utf8.RuneSelf {
			return ansi.StringWidth(s)
		}
	}
	return len(s)
}

// isCJK reports whether a line may break before or after r without a space.
func isCJK(r rune) bool {
	if r < 0x2e80 {
		return false
	}
	return unicode.Is(unicode.Han, r) || unicode.Is(unicode.Hiragana, r) ||
		unicode.Is(unicode.Katakana, r)
}
