package skill

import (
	"fmt"
	"strconv"
	"strings"
	"unicode/utf8"
)

// part is one `## ` section of a skill: its heading's text and the section whole, from
// its heading line to the next `## ` heading (its `###` subsections included).
type part struct {
	title string
	text  string
}

// split cuts a skill's text at its `## ` headings: start is what comes before the
// first (front matter, title, introduction), parts the sections in order. Lines in a
// fenced code block and in the front matter are never headings.
func split(text string) (start string, parts []part) {
	lines := strings.SplitAfter(text, "\n")
	var b strings.Builder
	cur := -1 // the part being filled; -1: the start
	flush := func() {
		if cur < 0 {
			start = b.String()
		} else {
			parts[cur].text = b.String()
		}
		b.Reset()
	}
	fence, front := "", len(lines) > 0 && strings.TrimRight(lines[0], "\r\n") == "---"
	for i, l := range lines {
		bare := strings.TrimRight(l, "\r\n")
		switch {
		case front:
			if i > 0 && (bare == "---" || bare == "...") {
				front = false
			}
		case fence != "":
			if strings.HasPrefix(strings.TrimSpace(bare), fence) {
				fence = ""
			}
		case strings.HasPrefix(strings.TrimSpace(bare), "```"):
			fence = "```"
		case strings.HasPrefix(strings.TrimSpace(bare), "~~~"):
			fence = "~~~"
		case strings.HasPrefix(bare, "## "):
			flush()
			parts = append(parts, part{title: strings.TrimSpace(strings.TrimRight(strings.TrimSpace(bare[3:]), "#"))})
			cur = len(parts) - 1
		}
		b.WriteString(l)
	}
	flush()
	return start, parts
}

// findPart returns the part named by want: its number (from 1) or its heading,
// matched without regard to case, with or without the leading "## ".
func findPart(parts []part, want string) (part, bool) {
	want = strings.TrimSpace(strings.TrimLeft(strings.TrimSpace(want), "#"))
	if n, err := strconv.Atoi(strings.TrimSuffix(want, ".")); err == nil {
		if n >= 1 && n <= len(parts) {
			return parts[n-1], true
		}
		return part{}, false
	}
	for _, p := range parts {
		if strings.EqualFold(p.title, want) {
			return p, true
		}
	}
	return part{}, false
}

// noPart is the sentence for a part that s does not have.
func noPart(name, want string, parts []part) string {
	if len(parts) == 0 {
		return fmt.Sprintf(`The skill %q has no parts (no "## " headings), so read it without "part".`, name)
	}
	listed := make([]string, len(parts))
	for i, p := range parts {
		listed[i] = fmt.Sprintf("%d %q", i+1, p.title)
	}
	return fmt.Sprintf("The skill %q has no part %q; its parts are %s.", name, want, strings.Join(listed, ", "))
}

// table is what follows the start of a skill too long to give whole: its size, how
// to read a part, and one line per part with its size.
func table(name string, size, whole int, parts []part) string {
	var b strings.Builder
	fmt.Fprintf(&b, "\n[This skill has %d characters, more than the %d given at once, so only its start is above. Read a part whole with read_skill {\"name\": %q, \"part\": \"<its heading or number>\"}. Its parts:]\n", size, whole, name)
	for i, p := range parts {
		fmt.Fprintf(&b, "%d. %s (%d characters)\n", i+1, p.title, utf8.RuneCountInString(p.text))
	}
	return b.String()
}
