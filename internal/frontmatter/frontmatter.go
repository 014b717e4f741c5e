// Package frontmatter cuts the YAML front matter off a Markdown file: the one reading
// of skills, custom commands and agent definitions alike.
package frontmatter

import "strings"

// Split separates a leading `---` … `---` block from the rest of s (a byte-order mark
// and CRLF line ends taken away first), and tells whether there was one. Without a
// closed block the whole text is the body.
func Split(s string) (block, body string, ok bool) {
	s = strings.TrimPrefix(s, "\uFEFF")
	s = strings.ReplaceAll(s, "\r\n", "\n")
	rest, found := strings.CutPrefix(s, "---\n")
	if !found {
		return "", s, false
	}
	for off := 0; ; {
		end := strings.IndexByte(rest[off:], '\n')
		line := rest[off:]
		if end >= 0 {
			line = rest[off : off+end]
		}
		if strings.TrimRight(line, " \t") == "---" {
			if end < 0 {
				return rest[:off], "", true
			}
			return rest[:off], rest[off+end+1:], true
		}
		if end < 0 {
			return "", s, false
		}
		off += end + 1
	}
}
