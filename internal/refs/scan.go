package refs

import (
	"github.com/gantry-dev/gantry/internal/markdown"
	"strings"
	"unicode"
)

// kind is what a reference names.
type kind int

const (
	kindPlain kind = iota // @path: a reference only when the path exists
	kindFile              // @file:path
	kindSkill             // @skill:name
)

// ref is one reference found in a prompt.
type ref struct {
	kind   kind
	typed  string // the reference as typed, @ included
	target string // the path or the skill's name, as typed (trailing punctuation kept)
	args   string // for a skill: the rest of its line, trimmed
}

// scan returns the references of prompt in order. Text inside code fences (``` or ~~~)
// and inline code spans is skipped; an @ is a reference only at the start of a word
// (after white space, an opening bracket or a quote, so an e-mail address is not one)
// and only when something other than white space follows it.
func scan(prompt string) []ref {
	var out []ref
	markdown.ProseLines(prompt, func(line string) { out = append(out, scanLine(line)...) })
	return out
}

// scanLine returns the references of one line outside a fence.
func scanLine(line string) []ref {
	var out []ref
	masked := markdown.MaskInlineCode(line)
	for i := 0; i < len(masked); i++ {
		if masked[i] != '@' || (i > 0 && !startsWord(masked[i-1])) {
			continue
		}
		end := wordEnd(masked, i+1)
		if end == i+1 {
			continue // "@" followed by white space or the end
		}
		r := ref{kind: kindPlain, typed: line[i:end], target: line[i+1 : end]}
		switch {
		case strings.HasPrefix(r.target, "file:"):
			r.kind, r.target = kindFile, strings.TrimPrefix(r.target, "file:")
			if strings.HasPrefix(r.target, `"`) { // @file:"a path with spaces"
				if q := strings.IndexByte(masked[i+len(`@file:"`):], '"'); q >= 0 {
					end = i + len(`@file:"`) + q + 1
					r.typed, r.target = line[i:end], line[i+len(`@file:"`):end-1]
				}
			}
		case strings.HasPrefix(r.target, "skill:"):
			r.kind, r.target = kindSkill, strings.TrimPrefix(r.target, "skill:")
			r.args = strings.TrimSpace(line[end:])
		}
		if r.target != "" {
			out = append(out, r)
		}
		i = end - 1
	}
	return out
}

// startsWord tells whether an @ after the byte c starts a word.
func startsWord(c byte) bool {
	return c == ' ' || c == '\t' || c == '\r' || c == '\v' || c == '\f' || strings.IndexByte("([{<\"'", c) >= 0
}

// wordEnd returns the index of the first white space of s at or after i, or len(s).
func wordEnd(s string, i int) int {
	if j := strings.IndexFunc(s[i:], unicode.IsSpace); j >= 0 {
		return i + j
	}
	return len(s)
}
