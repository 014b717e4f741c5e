package tool

import (
	"encoding/json"
	"strconv"
)

// parseArgs parses a call's arguments as json.Unmarshal into an any does. A flat
// object of ASCII strings without escapes, numbers, booleans and nulls — nearly
// every call's arguments — is read by a short scan of its own (decoding a call was
// most of a warm lsp query's own time, and encoding/json's general decoder the most
// of that: docs/benchmarks.md, "Warm queries beyond references"); anything else, and
// every error, is left to json.Unmarshal, so the value and the messages are its.
func parseArgs(input []byte) (any, error) {
	if m, ok := flatObject(input); ok {
		return m, nil
	}
	var v any
	err := json.Unmarshal(input, &v)
	return v, err
}

// flatObject parses input when it is such a flat object; ok false: not one, or not
// valid JSON.
func flatObject(in []byte) (m map[string]any, ok bool) {
	i := skipSpace(in, 0)
	if i >= len(in) || in[i] != '{' {
		return nil, false
	}
	m = map[string]any{}
	i = skipSpace(in, i+1)
	if i < len(in) && in[i] == '}' {
		return m, skipSpace(in, i+1) == len(in)
	}
	for {
		key, j, ok := plainString(in, i)
		if !ok {
			return nil, false
		}
		i = skipSpace(in, j)
		if i >= len(in) || in[i] != ':' {
			return nil, false
		}
		i = skipSpace(in, i+1)
		var v any
		if v, i, ok = flatValue(in, i); !ok {
			return nil, false
		}
		m[key] = v
		i = skipSpace(in, i)
		if i >= len(in) {
			return nil, false
		}
		switch in[i] {
		case ',':
			i = skipSpace(in, i+1)
		case '}':
			return m, skipSpace(in, i+1) == len(in)
		default:
			return nil, false
		}
	}
}

func skipSpace(in []byte, i int) int {
	for i < len(in) && (in[i] == ' ' || in[i] == '\t' || in[i] == '\n' || in[i] == '\r') {
		i++
	}
	return i
}

// plainString reads the string at in[i], ok only when it holds printable ASCII
// without escapes (no decoding to do).
func plainString(in []byte, i int) (s string, next int, ok bool) {
	if i >= len(in) || in[i] != '"' {
		return "", 0, false
	}
	for j := i + 1; j < len(in); j++ {
		switch c := in[j]; {
		case c == '"':
			return string(in[i+1 : j]), j + 1, true
		case c < 0x20 || c == '\\' || c >= 0x80:
			return "", 0, false
		}
	}
	return "", 0, false
}

// flatValue reads a string, number, boolean or null at in[i].
func flatValue(in []byte, i int) (v any, next int, ok bool) {
	if i >= len(in) {
		return nil, 0, false
	}
	switch c := in[i]; {
	case c == '"':
		return plainString(in, i)
	case c == 't':
		return true, i + 4, literal(in, i, "true")
	case c == 'f':
		return false, i + 5, literal(in, i, "false")
	case c == 'n':
		return nil, i + 4, literal(in, i, "null")
	case c == '-' || (c >= '0' && c <= '9'):
		j := number(in, i)
		if j < 0 {
			return nil, 0, false
		}
		f, err := strconv.ParseFloat(string(in[i:j]), 64)
		if err != nil {
			return nil, 0, false // out of range: json.Unmarshal says so
		}
		return f, j, true
	}
	return nil, 0, false
}

func literal(in []byte, i int, word string) bool {
	return len(in)-i >= len(word) && string(in[i:i+len(word)]) == word
}

// number is the end of the JSON number at in[i] (-1: not one):
// -?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?
func number(in []byte, i int) int {
	digits := func(i int) int {
		j := i
		for j < len(in) && in[j] >= '0' && in[j] <= '9' {
			j++
		}
		return j
	}
	if in[i] == '-' {
		i++
	}
	switch {
	case i < len(in) && in[i] == '0':
		i++
	case i < len(in) && in[i] >= '1' && in[i] <= '9':
		i = digits(i)
	default:
		return -1
	}
	if i < len(in) && in[i] == '.' {
		j := digits(i + 1)
		if j == i+1 {
			return -1
		}
		i = j
	}
	if i < len(in) && (in[i] == 'e' || in[i] == 'E') {
		i++
		if i < len(in) && (in[i] == '+' || in[i] == '-') {
			i++
		}
		j := digits(i)
		if j == i {
			return -1
		}
		i = j
	}
	return i
}
