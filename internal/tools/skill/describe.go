package skill

import (
	"strings"

	"github.com/goccy/go-yaml"
)

// maxDescription bounds a catalogue line's description, in characters.
const maxDescription = 300

// describe returns a skill's one-line description: the description of its YAML front
// matter, else its first paragraph after the front matter and any leading headings.
func describe(markdown string) string {
	meta, body := splitFrontMatter(markdown)
	var fm struct {
		Description string `yaml:"description"`
	}
	if meta != "" && yaml.Unmarshal([]byte(meta), &fm) == nil && strings.TrimSpace(fm.Description) != "" {
		return oneLine(fm.Description)
	}
	return oneLine(firstParagraph(body))
}

// splitFrontMatter separates a leading `---` … `---` block from the rest. Without a
// closed block the whole text is the body.
func splitFrontMatter(s string) (meta, body string) {
	s = strings.TrimPrefix(s, "\uFEFF")
	s = strings.ReplaceAll(s, "\r\n", "\n")
	if !strings.HasPrefix(s, "---\n") {
		return "", s
	}
	rest := s[len("---\n"):]
	for off := 0; off <= len(rest); {
		end := strings.IndexByte(rest[off:], '\n')
		line := rest[off:]
		if end >= 0 {
			line = rest[off : off+end]
		}
		if strings.TrimRight(line, " \t") == "---" {
			if end < 0 {
				return rest[:off], ""
			}
			return rest[:off], rest[off+end+1:]
		}
		if end < 0 {
			break
		}
		off += end + 1
	}
	return "", s
}

// firstParagraph returns the first run of non-blank lines that are not headings.
func firstParagraph(body string) string {
	var para []string
	for line := range strings.SplitSeq(body, "\n") {
		t := strings.TrimSpace(line)
		switch {
		case (t == "" || strings.HasPrefix(t, "#")) && len(para) > 0:
			return strings.Join(para, " ")
		case t == "" || strings.HasPrefix(t, "#"):
		default:
			para = append(para, t)
		}
	}
	return strings.Join(para, " ")
}

// oneLine collapses white space and bounds the length.
func oneLine(s string) string {
	s = strings.Join(strings.Fields(s), " ")
	if r := []rune(s); len(r) > maxDescription {
		s = string(r[:maxDescription-1]) + "…"
	}
	return s
}
