package skill

import (
	"unicode/utf8"

	"github.com/gantry-dev/gantry/internal/tool"
)

// DefaultWhole is the size, in characters, up to which a skill loads whole, whatever
// the session's bound on a tool result: about 25,000 tokens, room for the longest
// skills Anthropic publishes (claude-api's SKILL.md is about 60,000 characters). A
// longer skill loads as its start and the table of its parts.
const DefaultWhole = 100_000

// WholeBound is the size up to which a skill loads whole in a session whose tool
// results are bounded at maxOutput characters: DefaultWhole, or maxOutput when larger.
func WholeBound(maxOutput int) int { return max(DefaultWhole, maxOutput) }

// PartError is a part that a skill does not have: its Error is the sentence for the
// model, which lists the parts there are.
type PartError struct{ sentence string }

func (e *PartError) Error() string { return e.sentence }

// Render is s as read_skill, @skill:name and /name give it (see compose), with
// arguments and, when part is not empty, only that part; whole is WholeBound of the
// session. The error is the file's, or a *PartError.
func Render(s Skill, arguments, part string, whole int) (string, error) {
	raw, err := load(s)
	if err != nil {
		return "", pathless(err)
	}
	return compose(s, string(raw), arguments, part, "", whole)
}

// compose is a skill as the model reads it: the line naming its folder (Claude
// Code's "Base directory for this skill: /abs/path", so that the files beside it can
// be found), the sentence of what it allowed (said, when not empty), a blank line,
// then its text with arguments and its folder applied (see fill):
//   - with want, the part of that heading or number whole (a *PartError when there
//     is none);
//   - within whole characters, the whole text;
//   - longer, with `## ` headings, the text before the first heading and the table
//     of its parts with their sizes, from which read_skill reads one part;
//   - longer, without them, its head and tail in whole lines with the read_file call
//     that shows what was cut (see render).
//
// The result is at most whole characters (whole > 0).
func compose(s Skill, raw, arguments, want, said string, whole int) (string, error) {
	header := ""
	if dir := s.Dir(); dir != "" {
		header = "Base directory for this skill: " + dir + "\n"
	}
	if said != "" {
		header += said + "\n"
	}
	if header != "" {
		header += "\n"
	}
	text, trailer := fill(raw, arguments, s.Dir())
	if want != "" {
		_, parts := split(text)
		p, ok := findPart(parts, want)
		if !ok {
			return "", &PartError{noPart(s.Name, want, parts)}
		}
		return bounded(header+p.text+trailer, whole), nil
	}
	all := header + text + trailer
	if whole <= 0 || utf8.RuneCountInString(all) <= whole {
		return all, nil
	}
	if start, parts := split(text); len(parts) > 0 {
		t := table(s.Name, utf8.RuneCountInString(text), whole, parts)
		room := whole - utf8.RuneCountInString(header+t+trailer)
		if room >= whole/4 { // else too many parts for a table: head and tail
			return header + tool.Bound(start, room) + t + trailer, nil
		}
	}
	return render(s, raw, arguments, header, whole), nil
}

// bounded is text cut to max characters (max > 0) by the common bound.
func bounded(text string, max int) string {
	if max <= 0 {
		return text
	}
	return tool.Bound(text, max)
}
