package skill

import (
	"fmt"
	"regexp"
	"strings"
	"sync"

	"github.com/gantry-dev/gantry/internal/frontmatter"
)

// maxDescription bounds a catalogue line's description, in characters: Anthropic's
// limit for a skill's description. A longer one is cut, with a marker and a notice.
const maxDescription = 1024

// maxName bounds a skill's name, in characters (Anthropic's limit).
const maxName = 64

// meta is what gantry reads of a skill's text.
type meta struct {
	// name is the front matter's name ("" when it has none or it is not usable).
	name string
	// description is one line: the front matter's description, else the first
	// paragraph; cut at maxDescription.
	description string
	// allowed are the entries of allowed-tools, one tool each, as written.
	allowed []string
	// problems are sentences about what could not be used; each says what gantry
	// does instead.
	problems []string
}

// parseMeta reads a skill's markdown: the YAML front matter's name, description and
// allowed-tools, else (for the description) the first paragraph after the front
// matter and any leading headings. Bad front matter is a problem, never a panic.
func parseMeta(markdown string) (m meta) {
	block, body, closed := frontmatter.Split(markdown)
	fields := map[string]any{}
	if closed {
		var err error
		if fields, err = frontmatter.Decode(block); err != nil {
			m.problems = append(m.problems, fmt.Sprintf("its front matter is not valid YAML (%s), so gantry uses none of it", err))
			fields = map[string]any{}
		}
	}
	m.name = m.nameOf(fields)
	desc, fromFrontMatter := m.descriptionOf(fields, closed)
	if !fromFrontMatter {
		desc = firstParagraph(body)
	}
	m.description = m.bound(oneLine(desc), fromFrontMatter)
	m.allowed = m.allowedOf(fields)
	return m
}

var validName = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9._-]*$`) })

// nameOf returns a usable front-matter name, or "" (with a problem when one was given
// that cannot be used).
func (m *meta) nameOf(fields map[string]any) string {
	v, ok := fields["name"]
	if !ok || v == nil {
		return ""
	}
	s, str := v.(string)
	s = strings.TrimSpace(s)
	switch {
	case !str:
		m.problems = append(m.problems, fmt.Sprintf("its name is %s, not a string, so it is named after its file", frontmatter.Kind(v)))
		return ""
	case s == "":
		return ""
	case len([]rune(s)) <= maxName && !validName().MatchString(s) && validName().MatchString(strings.Join(strings.Fields(s), "-")):
		// A title ("Agent Development", as plugin-dev's skills have): Claude Code
		// names such a skill after its folder, and so does gantry, without a word.
		return ""
	case len([]rune(s)) > maxName || !validName().MatchString(s):
		m.problems = append(m.problems, fmt.Sprintf("its name %q is not a name gantry can use (at most %d letters, digits, hyphens, dots or underscores, starting with a letter or digit), so it is named after its file", clip(s), maxName))
		return ""
	}
	return s
}

// descriptionOf returns the front matter's description and whether there is one.
func (m *meta) descriptionOf(fields map[string]any, hasFrontMatter bool) (string, bool) {
	v, ok := fields["description"]
	if s, str := v.(string); ok && str && strings.TrimSpace(s) != "" {
		return s, true
	}
	switch {
	case ok && v != nil && !isString(v):
		m.problems = append(m.problems, fmt.Sprintf("its description is %s, not a string, so the catalogue shows its first paragraph", frontmatter.Kind(v)))
	case hasFrontMatter && len(fields) > 0:
		m.problems = append(m.problems, "its front matter has no description, so the catalogue shows its first paragraph")
	}
	return "", false
}

// bound cuts a description longer than maxDescription, with a marker (and, for one the
// author wrote in the front matter, a problem).
func (m *meta) bound(desc string, fromFrontMatter bool) string {
	r := []rune(desc)
	if len(r) <= maxDescription {
		return desc
	}
	if fromFrontMatter {
		m.problems = append(m.problems, fmt.Sprintf("its description has %d characters, more than the %d a skill may have, so the catalogue keeps the first %d", len(r), maxDescription, maxDescription-1))
	}
	return string(r[:maxDescription-1]) + "…"
}

// allowedOf returns the entries of allowed-tools: a string of entries separated by
// commas or spaces, or a list of them.
func (m *meta) allowedOf(fields map[string]any) []string {
	v, ok := fields["allowed-tools"]
	if !ok || v == nil {
		return nil
	}
	var out []string
	switch v := v.(type) {
	case string:
		out = splitTools(v)
	case []any:
		for i, x := range v {
			s, ok := x.(string)
			if !ok {
				m.problems = append(m.problems, fmt.Sprintf("item %d of its allowed-tools is %s, not a tool name, so it is ignored", i+1, frontmatter.Kind(x)))
				continue
			}
			out = append(out, splitTools(s)...)
		}
	default:
		m.problems = append(m.problems, fmt.Sprintf("its allowed-tools is %s, not a string or a list of tool names, so it allows nothing", frontmatter.Kind(v)))
	}
	return out
}

// splitTools splits "Read, Grep Bash(git status:*)" into its entries: commas and
// white space separate them, except inside parentheses.
func splitTools(s string) []string {
	var out []string
	var cur strings.Builder
	depth := 0
	flush := func() {
		if t := strings.TrimSpace(cur.String()); t != "" {
			out = append(out, t)
		}
		cur.Reset()
	}
	for _, c := range s {
		switch {
		case c == '(':
			depth++
		case c == ')' && depth > 0:
			depth--
		case depth == 0 && (c == ',' || c == ' ' || c == '\t' || c == '\n' || c == '\r'):
			flush()
			continue
		}
		cur.WriteRune(c)
	}
	flush()
	return out
}

func isString(v any) bool {
	_, ok := v.(string)
	return ok
}

// clip bounds a quoted value in a sentence.
func clip(s string) string {
	if r := []rune(s); len(r) > 80 {
		return string(r[:79]) + "…"
	}
	return s
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

// oneLine collapses white space.
func oneLine(s string) string { return strings.Join(strings.Fields(s), " ") }
