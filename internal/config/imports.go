package config

import (
	"github.com/gantry-dev/gantry/internal/markdown"
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
	markdown.ProseLines(text, func(line string) {
		for _, word := range strings.FieldsFunc(markdown.MaskInlineCode(line), unicode.IsSpace) {
			if len(word) < 2 || word[0] != '@' {
				continue
			}
			out = append(out, resolveImport(word[1:], dir))
		}
	})
	return out
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
