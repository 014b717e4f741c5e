package config

// stripJSONC turns JSONC (JSON with // and /* */ comments and trailing commas, as
// opencode's and VS Code's files are written) into JSON of the same length: each
// comment and trailing comma becomes spaces, newlines are kept, so that offsets and
// lines still point at the text as written. Plain JSON comes back unchanged.
func stripJSONC(data []byte) []byte {
	out := make([]byte, len(data))
	copy(out, data)
	blank := func(i, j int) {
		for ; i < j; i++ {
			if out[i] != '\n' && out[i] != '\r' {
				out[i] = ' '
			}
		}
	}
	// First the comments, outside strings.
	for i := 0; i < len(out); i++ {
		switch {
		case out[i] == '"':
			i = stringEnd(out, i)
		case out[i] == '/' && i+1 < len(out) && out[i+1] == '/':
			j := i
			for j < len(out) && out[j] != '\n' {
				j++
			}
			blank(i, j)
			i = j
		case out[i] == '/' && i+1 < len(out) && out[i+1] == '*':
			j := i + 2
			for j+1 < len(out) && !(out[j] == '*' && out[j+1] == '/') {
				j++
			}
			j = min(j+2, len(out))
			blank(i, j)
			i = j - 1
		}
	}
	// Then a comma followed, past white space, by the end of an object or a list.
	for i := 0; i < len(out); i++ {
		switch out[i] {
		case '"':
			i = stringEnd(out, i)
		case ',':
			j := i + 1
			for j < len(out) && (out[j] == ' ' || out[j] == '\t' || out[j] == '\n' || out[j] == '\r') {
				j++
			}
			if j < len(out) && (out[j] == '}' || out[j] == ']') {
				out[i] = ' '
			}
		}
	}
	return out
}

// stringEnd is the index of the quote that closes the JSON string opened at i (or
// the last index, for a string that does not end).
func stringEnd(b []byte, i int) int {
	for j := i + 1; j < len(b); j++ {
		switch b[j] {
		case '\\':
			j++
		case '"':
			return j
		}
	}
	return len(b) - 1
}
