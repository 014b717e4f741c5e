package walk

import (
	"bytes"
	"fmt"
	"strings"
)

// Verdict is what a set of rules says of a path.
type Verdict int8

// The verdicts.
const (
	None    Verdict = iota // no rule matched
	Exclude                // an ignore pattern matched last
	Include                // a negated (!) pattern matched last: whitelisted
)

type ignorePattern struct {
	g       *Glob
	negate  bool
	dirOnly bool
}

// Ignore is the compiled content of one gitignore-format file. Paths are matched
// relative to the directory holding the file.
type Ignore struct {
	pats []ignorePattern
}

// ParseIgnore compiles the lines of a .gitignore, .ignore or exclude file. Lines that
// are not valid patterns are skipped, as git and ripgrep do.
func ParseIgnore(data []byte) *Ignore {
	ig := &Ignore{}
	for len(data) > 0 {
		line := data
		if i := bytes.IndexByte(data, '\n'); i >= 0 {
			line, data = data[:i], data[i+1:]
		} else {
			data = nil
		}
		p, ok, err := parseIgnoreLine(string(line))
		if ok && err == nil {
			ig.pats = append(ig.pats, p)
		}
	}
	return ig
}

// NewIgnore compiles patterns in gitignore syntax, one per element, and refuses an
// invalid one with an error naming it.
func NewIgnore(patterns []string) (*Ignore, error) {
	ig := &Ignore{}
	for _, s := range patterns {
		p, ok, err := parseIgnoreLine(s)
		if err != nil {
			return nil, fmt.Errorf("%q is not a valid glob: %v", s, err)
		}
		if ok {
			ig.pats = append(ig.pats, p)
		}
	}
	return ig, nil
}

// Empty reports whether ig holds no pattern.
func (ig *Ignore) Empty() bool { return ig == nil || len(ig.pats) == 0 }

// Whitelists counts the negated patterns.
func (ig *Ignore) Whitelists() int {
	n := 0
	for _, p := range ig.pats {
		if p.negate {
			n++
		}
	}
	return n
}

// Match says what the last pattern matching rel (relative to the file's directory)
// says: Exclude, Include for a negated pattern, or None.
func (ig *Ignore) Match(rel string, isDir bool) Verdict {
	if ig == nil {
		return None
	}
	for i := len(ig.pats) - 1; i >= 0; i-- {
		p := &ig.pats[i]
		if p.dirOnly && !isDir {
			continue
		}
		if p.g.Match(rel) {
			if p.negate {
				return Include
			}
			return Exclude
		}
	}
	return None
}

// parseIgnoreLine turns one line into a pattern the way ripgrep's ignore crate does;
// ok is false for blank lines and comments.
func parseIgnoreLine(line string) (p ignorePattern, ok bool, err error) {
	line = strings.TrimSuffix(line, "\r")
	if strings.HasPrefix(line, "#") {
		return p, false, nil
	}
	if !strings.HasSuffix(line, "\\ ") {
		line = strings.TrimRight(line, " \t\r\v\f")
	}
	if line == "" {
		return p, false, nil
	}
	anchored := false
	if strings.HasPrefix(line, `\!`) || strings.HasPrefix(line, `\#`) {
		line = line[1:]
		anchored = strings.HasPrefix(line, "/")
	} else {
		if strings.HasPrefix(line, "!") {
			p.negate = true
			line = line[1:]
		}
		if strings.HasPrefix(line, "/") {
			line = line[1:]
			anchored = true
		}
	}
	if strings.HasSuffix(line, "/") {
		p.dirOnly = true
		line = line[:len(line)-1]
		line = strings.TrimSuffix(line, `\`)
	}
	if line == "" {
		return p, false, nil
	}
	if !anchored && !strings.Contains(line, "/") && !strings.HasPrefix(line, "**/") {
		line = "**/" + line
	}
	if strings.HasSuffix(line, "/**") {
		line += "/*"
	}
	p.g, err = CompileGlob(line)
	if err != nil {
		return p, false, err
	}
	return p, true, nil
}
