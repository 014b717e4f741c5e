package refs

import (
	"os"
	"path/filepath"
	"strings"
)

// resolve returns the absolute path of p (relative to Cwd, absolute, or starting with
// ~/ for the home folder) and whether something exists there.
func (x *expander) resolve(p string) (string, bool) {
	abs := x.absolute(p)
	if abs == "" {
		return "", false
	}
	_, err := os.Stat(abs)
	return abs, err == nil
}

// absolute returns p made absolute and clean, or "" when that is not possible.
func (x *expander) absolute(p string) string {
	if p == "~" || strings.HasPrefix(p, "~/") {
		home, err := os.UserHomeDir()
		if err != nil || home == "" {
			return ""
		}
		p = filepath.Join(home, p[1:])
	}
	if !filepath.IsAbs(p) {
		p = filepath.Join(x.o.Cwd, p)
	}
	abs, err := filepath.Abs(p)
	if err != nil {
		return ""
	}
	return abs
}

// shown is the path a block is labelled with: relative to Cwd when inside it, else
// absolute.
func (x *expander) shown(abs string) string {
	cwd := x.absolute(".")
	if rel, err := filepath.Rel(cwd, abs); err == nil && cwd != "" && rel != ".." && !strings.HasPrefix(rel, "../") {
		return rel
	}
	return abs
}
