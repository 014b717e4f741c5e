package mdterm

import (
	"strings"
)

// highlight returns code with its comments, strings, numbers, keywords and
// the like coloured for lang, or code itself for a language it does not
// know. It reads the code once (linear time) and never fails; each line's
// colours are closed at its end.
func highlight(lang, code string) string {
	l := langs()[strings.ToLower(strings.TrimSpace(lang))]
	if l == nil {
		return code
	}
	h := &lexer{s: code, l: l}
	h.b.Grow(len(code) * 2)
	switch l.mode {
	case modeHTML:
		h.html()
	case modeDiff:
		h.diff()
	default:
		h.code()
	}
	return h.b.String()
}

// lexer writes highlighted code to b.
type lexer struct {
	s     string
	l     *lang
	b     strings.Builder
	depth int // of braces, in CSS
}

// emit writes s[i:j] in style st, painting each line apart.
func (h *lexer) emit(i, j int, st style) {
	t := h.s[i:j]
	if st == 0 {
		h.b.WriteString(t)
		return
	}
	pre, suf := codes(st)
	for {
		k := strings.IndexByte(t, '\n')
		part := t
		if k >= 0 {
			part = t[:k]
		}
		if part != "" {
			h.b.WriteString(pre)
			h.b.WriteString(part)
			h.b.WriteString(suf)
		}
		if k < 0 {
			return
		}
		h.b.WriteByte('\n')
		t = t[k+1:]
	}
}

// lineEnd returns the index of the end of the line holding i.
func (h *lexer) lineEnd(i int) int {
	if k := strings.IndexByte(h.s[i:], '\n'); k >= 0 {
		return i + k
	}
	return len(h.s)
}

// until returns the index just past the first end at or after i, or the end
// of the code.
func (h *lexer) until(i int, end string) int {
	if k := strings.Index(h.s[i:], end); k >= 0 {
		return i + k + len(end)
	}
	return len(h.s)
}

func isDigit(c byte) bool { return c >= '0' && c <= '9' }

func isIdentStart(c byte) bool {
	return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c == '_' || c >= 0x80
}

func (h *lexer) isIdent(c byte) bool {
	return isIdentStart(c) || isDigit(c) || strings.IndexByte(h.l.identMore, c) >= 0
}

// ident returns the end of the name starting at i.
func (h *lexer) ident(i int) int {
	j := i + 1
	for j < len(h.s) && h.isIdent(h.s[j]) {
		j++
	}
	return j
}

// next returns the first character after i on the line that is not a space.
func (h *lexer) next(i int) byte {
	for ; i < len(h.s); i++ {
		if c := h.s[i]; c != ' ' && c != '\t' {
			return c
		}
	}
	return 0
}

// str returns the end of the string starting with quote q at i: strings
// with an end on their line (or anywhere for a multi-line quote), strings
// without one run to the end of the line (of the code, multi-line).
func (h *lexer) str(i int, q byte, multi bool) int {
	for j := i + 1; j < len(h.s); j++ {
		switch h.s[j] {
		case '\\':
			if !(h.l.rawSingle && q == '\'') {
				j++
			}
		case q:
			return j + 1
		case '\n':
			if !multi {
				return j
			}
		}
	}
	return len(h.s)
}

// number returns the end of the number starting at i.
func (h *lexer) number(i int) int {
	j := i + 1
	for j < len(h.s) {
		c := h.s[j]
		switch {
		case isDigit(c) || c == '_' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c == '%' && h.l.mode == modeCSS:
		case c == '.' && j+1 < len(h.s) && isDigit(h.s[j+1]):
		case (c == '-' || c == '+') && (h.s[j-1] == 'e' || h.s[j-1] == 'E') && !strings.HasPrefix(h.s[i:], "0x"):
		case (c == '-' || c == ':') && h.l.mode == modeTOML: // dates and times
		default:
			return j
		}
		j++
	}
	return j
}

// code highlights the languages that share the code lexer.
func (h *lexer) code() {
	s, l := h.s, h.l
	lineStart := true // only spaces so far on this line
	for i := 0; i < len(s); {
		c := s[i]
		if c == '\n' || c == ' ' || c == '\t' || c == '\r' {
			if c == '\n' {
				lineStart = true
			}
			h.b.WriteByte(c)
			i++
			continue
		}
		if lineStart {
			lineStart = false
			if j := h.lineHead(i); j > i {
				i = j
				continue
			}
		}
		if j := h.comment(i); j > i {
			h.emit(i, j, cComment)
			i = j
			continue
		}
		if l.triple && (strings.HasPrefix(s[i:], `"""`) || strings.HasPrefix(s[i:], "'''")) {
			j := h.until(i+3, s[i:i+3])
			h.emit(i, j, cString)
			i = j
			continue
		}
		if c == '\'' && l.lifetimes {
			if j := h.lifetime(i); j > i {
				i = j
				continue
			}
		}
		if strings.IndexByte(l.quotes, c) >= 0 || strings.IndexByte(l.multi, c) >= 0 {
			j := h.str(i, c, strings.IndexByte(l.multi, c) >= 0)
			st := cString
			if l.mode == modeJSON && h.next(j) == ':' {
				st = cAttr
			}
			h.emit(i, j, st)
			i = j
			continue
		}
		prevIdent := i > 0 && h.isIdent(s[i-1])
		switch {
		case l.mode == modeCSS:
			if j := h.css(i); j > i {
				i = j
				continue
			}
		case c == '$' && l.vars && i+1 < len(s):
			j := i + 2
			switch d := s[i+1]; {
			case d == '{':
				end := h.lineEnd(i)
				j = end
				if k := strings.IndexByte(s[i+2:end], '}'); k >= 0 {
					j = i + 2 + k + 1
				}
			case isIdentStart(d):
				j = h.ident(i + 1)
			}
			h.emit(i, j, cAttr)
			i = j
			continue
		case (c == '@' || c == ':' && l.symbols && !(i > 0 && s[i-1] == ':')) &&
			i+1 < len(s) && isIdentStart(s[i+1]) && !prevIdent:
			j := h.ident(i + 1)
			h.emit(i, j, cAttr)
			i = j
			continue
		}
		if (isDigit(c) || c == '.' && i+1 < len(s) && isDigit(s[i+1])) && !prevIdent {
			j := h.number(i)
			h.emit(i, j, cNumber)
			i = j
			continue
		}
		if isIdentStart(c) {
			j := h.ident(i)
			h.name(i, j)
			i = j
			continue
		}
		h.b.WriteByte(c)
		i++
	}
}

// comment returns the end of the comment starting at i, or i.
func (h *lexer) comment(i int) int {
	s, l := h.s, h.l
	for _, lc := range l.comments {
		if strings.HasPrefix(s[i:], lc) {
			if lc == "#" && l.hashSpace && i > 0 && s[i-1] != ' ' && s[i-1] != '\t' && s[i-1] != '\n' {
				continue
			}
			return h.lineEnd(i)
		}
	}
	for _, bc := range l.blocks {
		if strings.HasPrefix(s[i:], bc[0]) {
			return h.until(i+len(bc[0]), bc[1])
		}
	}
	return i
}

// name writes the name s[i:j]: a keyword, a type, a function (before "("
// or, in Rust, a macro before "!") or plain.
func (h *lexer) name(i, j int) {
	st := h.l.word(h.s[i:j])
	if st == 0 && h.l.triple && h.l.mode == modeCode && j-i <= 2 && j < len(h.s) &&
		(h.s[j] == '"' || h.s[j] == '\'') && strings.Trim(h.s[i:j], "rbfuRBFU") == "" {
		// A Python string prefix: f"..." r'...'.
		h.emit(i, j, cString)
		return
	}
	if st == 0 && h.l.mode == modeCode {
		switch h.next(j) {
		case '(':
			st = cFunc
		case '!':
			if h.l.lifetimes && !strings.HasPrefix(h.s[j:], "!=") {
				st = cFunc
			}
		}
	}
	h.emit(i, j, st)
}

// lineHead handles what only starts a line: C directives, YAML and TOML
// keys, TOML tables. It returns the end of what it wrote, or i.
func (h *lexer) lineHead(i int) int {
	s, l := h.s, h.l
	switch {
	case l.hashDir && s[i] == '#':
		j := i + 1
		for j < len(s) && (s[j] == ' ' || s[j] == '\t') {
			j++
		}
		if j < len(s) && isIdentStart(s[j]) {
			j = h.ident(j)
			h.emit(i, j, cKeyword)
			return j
		}
	case l.mode == modeTOML && s[i] == '[':
		end := h.lineEnd(i)
		j := strings.LastIndexByte(s[i:end], ']')
		if j > 0 {
			h.emit(i, i+j+1, cTag)
			return i + j + 1
		}
	case l.mode == modeTOML:
		end := h.lineEnd(i)
		if k := strings.IndexByte(s[i:end], '='); k > 0 && !strings.ContainsAny(s[i:i+k], `"'#[`) {
			key := strings.TrimRight(s[i:i+k], " \t")
			h.emit(i, i+len(key), cAttr)
			return i + len(key)
		}
	case l.mode == modeYAML:
		j := i
		for strings.HasPrefix(s[j:], "- ") {
			h.emit(j, j+1, cMarker)
			h.b.WriteByte(' ')
			j += 2
			for j < len(s) && s[j] == ' ' {
				h.b.WriteByte(' ')
				j++
			}
		}
		end := h.lineEnd(j)
		for k := j; k < end; k++ {
			c := s[k]
			if c == '#' || c == '"' || c == '\'' || c == '{' || c == '[' {
				break
			}
			if c == ':' && (k+1 == end || s[k+1] == ' ' || s[k+1] == '\t') {
				if k > j {
					h.emit(j, k, cAttr)
				}
				return k
			}
		}
		return j
	}
	return i
}

// lifetime writes a Rust lifetime ('a) or character literal ('x', '\n') at i
// and returns its end, or i.
func (h *lexer) lifetime(i int) int {
	s := h.s
	if i+2 < len(s) && s[i+1] != '\\' && s[i+2] == '\'' {
		h.emit(i, i+3, cString)
		return i + 3
	}
	if i+1 < len(s) && s[i+1] == '\\' {
		j := h.str(i, '\'', false)
		h.emit(i, j, cString)
		return j
	}
	if i+1 < len(s) && isIdentStart(s[i+1]) {
		j := h.ident(i + 1)
		if j < len(s) && s[j] == '\'' { // a character like 'é'
			h.emit(i, j+1, cString)
			return j + 1
		}
		h.emit(i, j, cType)
		return j
	}
	return i
}
