package config

import (
	"os"
	"path/filepath"
	"strings"
	"unicode"
)

// imports returns the files that text imports, in order, resolved against dir (the
// folder of the file holding text). An import is a word of the form @path: a path
// relative to dir, absolute, or starting with ~/ for the home folder, preceded by the
// start of a line or a space (so an e-mail address is not one). Words inside code
// fences (``` or ~~~) and inline code spans are not imports. Punctuation that ends a
// sentence is dropped when the path with it does not exist.
func imports(text, dir string) []string {
	var out []string
	fence := ""
	for _, line := range strings.Split(text, "\n") {
		if f := fenceOf(line); f != "" {
			switch {
			case fence == "":
				fence = f
			case strings.HasPrefix(f, fence) && strings.TrimSpace(strings.TrimLeft(strings.TrimSpace(line), fence[:1])) == "":
				fence = "" // a closing fence: at least as long as the opening one, nothing after
			}
			continue
		}
		if fence != "" {
			continue
		}
		for _, word := range strings.FieldsFunc(stripInlineCode(line), unicode.IsSpace) {
			if len(word) < 2 || word[0] != '@' {
				continue
			}
			out = append(out, resolveImport(word[1:], dir))
		}
	}
	return out
}

// fenceOf returns the run of backticks or tildes that opens a code fence on line (at
// most three spaces of indent, three or more of the same character), or "".
func fenceOf(line string) string {
	trimmed := strings.TrimLeft(line, " ")
	if len(line)-len(trimmed) > 3 || len(trimmed) < 3 {
		return ""
	}
	c := trimmed[0]
	if c != '`' && c != '~' {
		return ""
	}
	n := 0
	for n < len(trimmed) && trimmed[n] == c {
		n++
	}
	if n < 3 || (c == '`' && strings.ContainsRune(trimmed[n:], '`')) {
		return ""
	}
	return trimmed[:n]
}

// stripInlineCode replaces the code spans of a Markdown line (text between runs of
// backticks of equal length) with a space. An unmatched run is left as text.
func stripInlineCode(line string) string {
	var b strings.Builder
	for {
		i := strings.IndexByte(line, '`')
		if i < 0 {
			b.WriteString(line)
			return b.String()
		}
		n := i
		for n < len(line) && line[n] == '`' {
			n++
		}
		run := line[i:n]
		end := closingRun(line[n:], len(run))
		if end < 0 {
			b.WriteString(line[:n])
			line = line[n:]
			continue
		}
		b.WriteString(line[:i])
		b.WriteByte(' ')
		line = line[n+end+len(run):]
	}
}

// closingRun returns the index in s of the first run of exactly n backticks, or -1.
func closingRun(s string, n int) int {
	for i := 0; i < len(s); {
		if s[i] != '`' {
			i++
			continue
		}
		j := i
		for j < len(s) && s[j] == '`' {
			j++
		}
		if j-i == n {
			return i
		}
		i = j
	}
	return -1
}

// resolveImport turns the path of an @path word into a file path.
func resolveImport(p, dir string) string {
	abs := func(p string) string {
		p = expandHome(p)
		if !filepath.IsAbs(p) {
			p = filepath.Join(dir, p)
		}
		return filepath.Clean(p)
	}
	full := abs(p)
	if _, err := os.Stat(full); err != nil {
		if trimmed := strings.TrimRight(p, ".,;:!?)]}'\""); trimmed != p && trimmed != "" {
			if t := abs(trimmed); fileExists(t) {
				return t
			}
		}
	}
	return full
}

func fileExists(p string) bool {
	_, err := os.Stat(p)
	return err == nil
}
