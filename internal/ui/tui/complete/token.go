package complete

import (
	"strings"
	"unicode"
	"unicode/utf8"
)

const skillSigil = "@skill:"

// Token finds the token under the cursor that completion applies to. input is the
// whole content of the input box and cursor a byte offset in it (clamped to the input
// and moved back to the start of a rune). Tokens are separated by white space; the part
// before the cursor decides:
//
//   - "@skill:name" gives kind KindSkill and prefix "name";
//   - "@path" gives kind KindFile and prefix "path" (the caller offers Files, which
//     include folders);
//   - "/name" as the first token of the input, with nothing before it, gives kind
//     KindCommand and prefix "name";
//   - anything else gives kind "" (start is then the cursor, prefix "").
//
// start is the byte offset of the token's first character (its sigil), for Apply.
func Token(input string, cursor int) (start int, kind string, prefix string) {
	cursor = boundary(input, cursor)
	start = cursor
	for start > 0 {
		r, size := utf8.DecodeLastRuneInString(input[:start])
		if unicode.IsSpace(r) {
			break
		}
		start -= size
	}
	word := input[start:cursor]
	switch {
	case strings.HasPrefix(word, skillSigil):
		return start, KindSkill, word[len(skillSigil):]
	case strings.HasPrefix(word, "@"):
		return start, KindFile, word[1:]
	case start == 0 && strings.HasPrefix(word, "/"):
		return start, KindCommand, word[1:]
	}
	return cursor, "", ""
}

// Apply replaces the token that starts at start (as Token returned it) and runs past
// the cursor to the next white space with the candidate behind its sigil ("@" for a
// file or folder, "@skill:" for a skill, "/" for a command), followed by a space
// unless it is a folder, so that completion can go on inside it. A space already
// following the token is reused. It returns the new input and the cursor (a byte
// offset) after the insertion.
func Apply(input string, cursor int, start int, c Candidate) (newInput string, newCursor int) {
	cursor = boundary(input, cursor)
	start = min(boundary(input, start), cursor)
	end := cursor
	for end < len(input) {
		r, size := utf8.DecodeRuneInString(input[end:])
		if unicode.IsSpace(r) {
			break
		}
		end += size
	}
	repl := sigil(c.Kind) + c.Text
	rest := input[end:]
	folder := c.Kind == KindDir || (c.Kind == KindFile && strings.HasSuffix(c.Text, "/"))
	switch {
	case folder:
	case strings.HasPrefix(rest, " "):
		rest = rest[1:]
		repl += " "
	default:
		repl += " "
	}
	return input[:start] + repl + rest, start + len(repl)
}

func sigil(kind string) string {
	switch kind {
	case KindFile, KindDir:
		return "@"
	case KindSkill:
		return skillSigil
	case KindCommand:
		return "/"
	}
	return ""
}

// boundary clamps i to s and moves it back to the start of a rune.
func boundary(s string, i int) int {
	i = max(0, min(i, len(s)))
	for i > 0 && i < len(s) && !utf8.RuneStart(s[i]) {
		i--
	}
	return i
}
