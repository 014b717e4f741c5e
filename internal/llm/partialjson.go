package llm

import "unicode/utf8"

// ClosePartialJSON makes valid JSON of the start of a JSON text that is still being
// streamed (a tool call's arguments so far): an open string is closed where its last
// whole character ends, a key without its value and an unfinished number or literal
// are dropped, and the open objects and arrays are closed. It returns "" when nothing
// of the text can be kept (nothing yet, or not JSON). It never fails on any input; a
// text that is valid JSON comes back as it is.
func ClosePartialJSON(s string) string {
	var (
		stack []byte // the open containers, '{' or '['
		// expect is what may come next in the innermost container (or at the top).
		expect   = wantValue
		cut      = 0  // the longest prefix of s that is valid once closed
		cutStack = "" // the containers open at cut, innermost last
	)
	mark := func(i int) { cut, cutStack = i, string(stack) }
	closers := func(open string) string {
		b := make([]byte, 0, len(open))
		for i := len(open) - 1; i >= 0; i-- {
			if open[i] == '{' {
				b = append(b, '}')
			} else {
				b = append(b, ']')
			}
		}
		return string(b)
	}
	// valueDone is what follows a complete value.
	valueDone := func(i int) {
		expect = wantNext
		mark(i)
	}
	result := func() string {
		if cut == 0 {
			return ""
		}
		return s[:cut] + closers(cutStack)
	}
	for i := 0; i < len(s); {
		c := s[i]
		switch c {
		case ' ', '\t', '\n', '\r':
			i++
			continue
		}
		switch expect {
		case wantValue, wantFirstValue:
			switch {
			case c == '{':
				stack = append(stack, '{')
				expect = wantFirstKey
				i++
				mark(i)
			case c == '[':
				stack = append(stack, '[')
				expect = wantFirstValue
				i++
				mark(i)
			case c == ']' && expect == wantFirstValue:
				stack = stack[:len(stack)-1]
				i++
				valueDone(i)
			case c == '"':
				end, safe := scanString(s, i)
				if end < 0 {
					// An open string: closed after its last whole character.
					return s[:safe] + `"` + closers(string(stack))
				}
				i = end
				valueDone(i)
			default:
				end := scanScalar(s, i)
				if end < 0 {
					return result()
				}
				i = end
				valueDone(i)
			}
		case wantFirstKey, wantKey:
			switch {
			case c == '}' && expect == wantFirstKey:
				stack = stack[:len(stack)-1]
				i++
				valueDone(i)
			case c == '"':
				end, _ := scanString(s, i)
				if end < 0 {
					return result()
				}
				i = end
				expect = wantColon
			default:
				return result()
			}
		case wantColon:
			if c != ':' {
				return result()
			}
			i++
			expect = wantValue
		case wantNext:
			switch {
			case len(stack) == 0:
				return result() // something after the value: not JSON
			case c == ',':
				i++
				if stack[len(stack)-1] == '{' {
					expect = wantKey
				} else {
					expect = wantValue
				}
			case (c == '}' && stack[len(stack)-1] == '{') || (c == ']' && stack[len(stack)-1] == '['):
				stack = stack[:len(stack)-1]
				i++
				valueDone(i)
			default:
				return result()
			}
		}
	}
	return result()
}

// What may come next while ClosePartialJSON reads.
const (
	wantValue      = iota // a value (after a colon, a comma in an array, at the top)
	wantFirstValue        // a value or the end of an array just opened
	wantFirstKey          // a key or the end of an object just opened
	wantKey               // a key (after a comma in an object)
	wantColon             // the colon after a key
	wantNext              // a comma or the end of the container, after a value
)

// scanString reads the string starting at s[i] (a quote). It returns the index after
// its closing quote, or -1 when the string is not closed yet, and then safe: the
// index after its last whole character (never inside an escape or a character's
// bytes). A string holding a control character or a bad escape counts as not closed,
// and its safe end stops before it; a byte that is not UTF-8 is kept.
func scanString(s string, i int) (end, safe int) {
	j := i + 1
	for j < len(s) {
		c := s[j]
		switch {
		case c == '"':
			return j + 1, j
		case c == '\\':
			n := escapeLen(s[j:])
			if n <= 0 {
				return -1, j
			}
			j += n
		case c < 0x20:
			return -1, j
		case c < utf8.RuneSelf:
			j++
		default:
			if !utf8.FullRuneInString(s[j:]) {
				return -1, j // a character cut in its bytes: the rest is to come
			}
			_, size := utf8.DecodeRuneInString(s[j:])
			j += size // a byte that is not UTF-8 is kept, as JSON decoders keep it
		}
	}
	return -1, j
}

// escapeLen is the length of the whole escape at the start of s, or 0 when it is
// not whole yet or not an escape.
func escapeLen(s string) int {
	if len(s) < 2 {
		return 0
	}
	switch s[1] {
	case '"', '\\', '/', 'b', 'f', 'n', 'r', 't':
		return 2
	case 'u':
		if len(s) < 6 {
			return 0
		}
		for _, h := range []byte(s[2:6]) {
			if !('0' <= h && h <= '9' || 'a' <= h && h <= 'f' || 'A' <= h && h <= 'F') {
				return 0
			}
		}
		return 6
	}
	return 0
}

// scanScalar reads the number or literal starting at s[i] and returns the index after
// it, or -1 when it is unfinished (the text ends in it) or not JSON.
func scanScalar(s string, i int) int {
	j := i
	for j < len(s) && !delimiter(s[j]) {
		j++
	}
	if j == len(s) {
		return -1 // "12" may yet be "123", "tru" "true"
	}
	switch tok := s[i:j]; tok {
	case "true", "false", "null":
		return j
	default:
		if validNumber(tok) {
			return j
		}
	}
	return -1
}

func delimiter(c byte) bool {
	switch c {
	case ',', '}', ']', ' ', '\t', '\n', '\r', ':', '"', '{', '[':
		return true
	}
	return false
}

// validNumber says whether tok is a JSON number.
func validNumber(tok string) bool {
	i := 0
	if i < len(tok) && tok[i] == '-' {
		i++
	}
	digits := func() int {
		n := 0
		for i < len(tok) && '0' <= tok[i] && tok[i] <= '9' {
			i++
			n++
		}
		return n
	}
	switch {
	case i < len(tok) && tok[i] == '0':
		i++
	case digits() == 0:
		return false
	}
	if i < len(tok) && tok[i] == '.' {
		i++
		if digits() == 0 {
			return false
		}
	}
	if i < len(tok) && (tok[i] == 'e' || tok[i] == 'E') {
		i++
		if i < len(tok) && (tok[i] == '+' || tok[i] == '-') {
			i++
		}
		if digits() == 0 {
			return false
		}
	}
	return i == len(tok)
}
