package mdterm

// The lexers of the markup languages: CSS, HTML and XML, and diffs.

import "strings"

// css handles CSS outside comments and strings: selectors, properties,
// at-rules, colours and numbers. It returns the end of what it wrote, or i.
func (h *lexer) css(i int) int {
	s := h.s
	c := s[i]
	switch {
	case c == '{':
		h.depth++
	case c == '}':
		h.depth = max(h.depth-1, 0)
	case c == '@' || c == '!':
		j := i + 1
		for j < len(s) && h.isIdent(s[j]) {
			j++
		}
		h.emit(i, j, cKeyword)
		return j
	case h.depth == 0:
		j := i
		for j < len(s) && !strings.ContainsRune(" \t\n{,", rune(s[j])) && !strings.HasPrefix(s[j:], "/*") {
			j++
		}
		if j > i {
			h.emit(i, j, cTag)
			return j
		}
	case c == '#':
		j := i + 1
		for j < len(s) && h.isIdent(s[j]) {
			j++
		}
		h.emit(i, j, cNumber)
		return j
	case isIdentStart(c) || c == '-' && i+1 < len(s) && (isIdentStart(s[i+1]) || s[i+1] == '-'):
		j := h.ident(i)
		st := style(0)
		if h.next(j) == ':' {
			st = cAttr
		}
		h.emit(i, j, st)
		return j
	}
	return i
}

// html highlights HTML and XML: tags, attributes, their values, comments
// and entities.
func (h *lexer) html() {
	s := h.s
	for i := 0; i < len(s); {
		switch {
		case strings.HasPrefix(s[i:], "<!--"):
			j := h.until(i+4, "-->")
			h.emit(i, j, cComment)
			i = j
		case s[i] == '<' && i+1 < len(s) && (isIdentStart(s[i+1]) || strings.IndexByte("/!?", s[i+1]) >= 0):
			i = h.tag(i)
		case s[i] == '&':
			j := i + 1
			for j < len(s) && j-i < 12 && (isIdentStart(s[j]) || isDigit(s[j]) || s[j] == '#') {
				j++
			}
			if j < len(s) && s[j] == ';' && j > i+1 {
				h.emit(i, j+1, cNumber)
				i = j + 1
			} else {
				h.b.WriteByte('&')
				i++
			}
		default:
			j := i + 1
			for j < len(s) && s[j] != '<' && s[j] != '&' {
				j++
			}
			h.emit(i, j, 0)
			i = j
		}
	}
}

// tag writes the tag starting at i and returns its end.
func (h *lexer) tag(i int) int {
	s := h.s
	j := i + 1
	for j < len(s) && strings.IndexByte("/!?", s[j]) >= 0 {
		j++
	}
	h.emit(i, j, 0)
	k := j
	for k < len(s) && (h.isIdent(s[k]) || s[k] == '-' || s[k] == ':' || s[k] == '.') {
		k++
	}
	h.emit(j, k, cTag)
	i = k
	for i < len(s) {
		c := s[i]
		switch {
		case c == '>':
			h.b.WriteByte('>')
			return i + 1
		case c == '"' || c == '\'':
			j := h.str(i, c, true)
			h.emit(i, j, cString)
			i = j
		case c == ' ' || c == '\t' || c == '\n' || c == '=' || c == '/' || c == '?':
			h.b.WriteByte(c)
			i++
		case c == '<':
			return i // a broken tag: start again
		default:
			j := i + 1
			for j < len(s) && strings.IndexByte(" \t\n=/>\"'<", s[j]) < 0 {
				j++
			}
			st := cAttr
			if i > 0 && s[i-1] == '=' {
				st = cString
			}
			h.emit(i, j, st)
			i = j
		}
	}
	return i
}

// diff colours added, removed and hunk lines.
func (h *lexer) diff() {
	for i := 0; i < len(h.s); {
		end := h.lineEnd(i)
		ln := h.s[i:end]
		st := style(0)
		switch {
		case strings.HasPrefix(ln, "+++"), strings.HasPrefix(ln, "---"),
			strings.HasPrefix(ln, "diff "), strings.HasPrefix(ln, "index "):
			st = bold
		case strings.HasPrefix(ln, "+"):
			st = cAdded
		case strings.HasPrefix(ln, "-"):
			st = cRemoved
		case strings.HasPrefix(ln, "@@"):
			st = cHunk
		}
		h.emit(i, end, st)
		if end < len(h.s) {
			h.b.WriteByte('\n')
		}
		i = end + 1
	}
}
