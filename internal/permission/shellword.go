package permission

import (
	"strconv"
	"strings"

	"mvdan.cc/sh/v3/syntax"
)

// literal resolves the quotes and escapes of a word that expands to a fixed string,
// and reports whether it does. pattern reports unquoted glob or brace characters, by
// which the shell may turn the word into other words.
func literal(x *syntax.Word) (val string, lit, pattern bool) {
	var b strings.Builder
	open := byte(0) // an unquoted [ or { seen, waiting for its ] or }
	for _, p := range x.Parts {
		switch p := p.(type) {
		case *syntax.Lit:
			var glob bool
			glob, open = globChars(p.Value, open)
			pattern = pattern || glob
			b.WriteString(unescape(p.Value, false))
		case *syntax.SglQuoted:
			if open == '[' && strings.Contains(p.Value, "]") || open == '{' && strings.Contains(p.Value, "}") {
				pattern = true // a quoted closer may still end the bracket, to be safe
			}
			if !p.Dollar {
				b.WriteString(p.Value)
				continue
			}
			s, ok := ansiC(p.Value)
			if !ok {
				return "", false, false
			}
			b.WriteString(s)
		case *syntax.DblQuoted:
			if p.Dollar {
				return "", false, false
			}
			for _, q := range p.Parts {
				l, ok := q.(*syntax.Lit)
				if !ok {
					return "", false, false
				}
				if open == '[' && strings.Contains(l.Value, "]") || open == '{' && strings.Contains(l.Value, "}") {
					pattern = true
				}
				b.WriteString(unescape(l.Value, true))
			}
		default:
			return "", false, false
		}
	}
	return b.String(), true, pattern
}

// globChars reports whether the unquoted text s makes a word a pattern the shell
// expands: a * or ?, a [ closed by a ] or a { closed by a } (open carries a [ or {
// from an earlier piece of the word). A lone [ is a plain character: `[ -f x ]` runs
// the program [, and test is no computed program.
func globChars(s string, open byte) (bool, byte) {
	for i := 0; i < len(s); i++ {
		switch c := s[i]; {
		case c == '\\':
			i++
		case c == '*' || c == '?':
			return true, open
		case c == '[' || c == '{':
			if open == 0 {
				open = c
			}
		case c == ']' && open == '[' || c == '}' && open == '{':
			return true, open
		}
	}
	return false, open
}

// unescape removes the backslashes the shell removes: any in unquoted text, and in
// double quotes those before $ ` " \ and a newline. A backslash-newline goes whole.
func unescape(s string, dquoted bool) string {
	if !strings.Contains(s, `\`) {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c != '\\' || i+1 == len(s) {
			b.WriteByte(c)
			continue
		}
		n := s[i+1]
		switch {
		case n == '\n':
		case !dquoted || strings.IndexByte("$`\"\\", n) >= 0:
			b.WriteByte(n)
		default:
			b.WriteByte(c)
			b.WriteByte(n)
		}
		i++
	}
	return b.String()
}

// ansiC decodes the body of a $'…' string. Escapes it does not know make it fail, so
// the word counts as computed.
func ansiC(s string) (string, bool) {
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c != '\\' {
			b.WriteByte(c)
			continue
		}
		if i+1 == len(s) {
			return "", false
		}
		i++
		switch e := s[i]; e {
		case 'a':
			b.WriteByte('\a')
		case 'b':
			b.WriteByte('\b')
		case 'e', 'E':
			b.WriteByte(0x1b)
		case 'f':
			b.WriteByte('\f')
		case 'n':
			b.WriteByte('\n')
		case 'r':
			b.WriteByte('\r')
		case 't':
			b.WriteByte('\t')
		case 'v':
			b.WriteByte('\v')
		case '\\', '\'', '"', '?':
			b.WriteByte(e)
		case 'x':
			j := i + 1
			for j < len(s) && j < i+3 && isHex(s[j]) {
				j++
			}
			if j == i+1 {
				return "", false
			}
			n, _ := strconv.ParseUint(s[i+1:j], 16, 8)
			b.WriteByte(byte(n))
			i = j - 1
		case '0', '1', '2', '3', '4', '5', '6', '7':
			j := i
			for j < len(s) && j < i+3 && s[j] >= '0' && s[j] <= '7' {
				j++
			}
			n, _ := strconv.ParseUint(s[i:j], 8, 16)
			b.WriteByte(byte(n))
			i = j - 1
		default:
			return "", false
		}
	}
	return b.String(), true
}

func isHex(c byte) bool {
	return c >= '0' && c <= '9' || c >= 'a' && c <= 'f' || c >= 'A' && c <= 'F'
}

// shellQuote writes a literal back as one shell word, quoted only when it must be.
func shellQuote(s string) string {
	if s == "" {
		return "''"
	}
	if !strings.ContainsAny(s, " \t\n'\"\\$`;&|<>()*?[]{}#~!") {
		return s
	}
	if q, err := syntax.Quote(s, syntax.LangBash); err == nil {
		return q
	}
	return strconv.Quote(s)
}
