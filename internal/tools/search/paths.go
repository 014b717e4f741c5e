package search

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
)

// displayPrefix returns what goes before a root-relative path so that the model sees
// paths relative to the working directory when the root lies inside it, absolute
// otherwise.
func displayPrefix(cwd, root string) string {
	rel, err := filepath.Rel(cwd, root)
	if err != nil || rel == ".." || strings.HasPrefix(rel, "../") {
		return strings.TrimSuffix(filepath.ToSlash(root), "/") + "/"
	}
	if rel == "." {
		return ""
	}
	return filepath.ToSlash(rel) + "/"
}

// displayPath is a single file's path as shown.
func displayPath(cwd, p string) string {
	pre := displayPrefix(cwd, filepath.Dir(p))
	return pre + filepath.Base(p)
}

// statRoot checks the path a tool was given; the sentence says what is wrong.
func statRoot(toolName, arg, abs string) (os.FileInfo, string) {
	fi, err := os.Stat(abs)
	shown := arg
	if shown == "" {
		shown = abs
	}
	switch {
	case err == nil:
		return fi, ""
	case os.IsNotExist(err):
		return nil, fmt.Sprintf("%s: the path %s does not exist.", toolName, shown)
	case os.IsPermission(err):
		return nil, fmt.Sprintf("%s: the path %s cannot be read (permission denied).", toolName, shown)
	default:
		return nil, fmt.Sprintf("%s: the path %s cannot be read (%v).", toolName, shown, err)
	}
}

// walkError turns the error of walking root into one sentence.
func walkError(toolName, shown string, err error) string {
	if os.IsPermission(err) {
		return fmt.Sprintf("%s cannot read the folder %s (permission denied).", toolName, shown)
	}
	return fmt.Sprintf("%s cannot read the folder %s (%v).", toolName, shown, err)
}

// thousands writes n with commas: 2,345.
func thousands(n int) string {
	s := fmt.Sprint(n)
	for i := len(s) - 3; i > 0; i -= 3 {
		s = s[:i] + "," + s[i:]
	}
	return s
}

func plural(n int, word string) string {
	if n == 1 {
		return "1 " + word
	}
	return thousands(n) + " " + word + "s"
}
