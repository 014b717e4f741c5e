package permission

import (
	"fmt"
	"path"
	"regexp"
	"strings"
)

// Rule is "tool" (every call of the tool) or "tool:regex" (calls whose principal
// argument the regex matches whole). The tool may be "*" (every tool) or end in "*"
// (mcp__github__* names every tool of a server).
type Rule struct {
	Tool    string
	Pattern *regexp.Regexp // nil: any argument
	// Source says where the rule comes from: "file:line", a flag, "session".
	Source string
	src    string
}

// ParseRule parses a rule.
func ParseRule(s string) (Rule, error) {
	s = strings.TrimSpace(s)
	if s == "" {
		return Rule{}, fmt.Errorf("empty permission rule")
	}
	name, pat, hasPat := strings.Cut(s, ":")
	if name == "" {
		return Rule{}, fmt.Errorf("permission rule %q names no tool", s)
	}
	if !validToolPattern(name) {
		return Rule{}, fmt.Errorf("permission rule %q: %q is not a tool name (want tool or tool:regex)", s, name)
	}
	r := Rule{Tool: name, src: s}
	if hasPat {
		if pat == "" {
			return Rule{}, fmt.Errorf("permission rule %q has an empty regular expression (write just %q for every call)", s, name)
		}
		re, err := regexp.Compile(`^(?:` + pat + `)$`)
		if err != nil {
			return Rule{}, fmt.Errorf("permission rule %q has a bad regular expression: %v", s, err)
		}
		r.Pattern = re
	}
	return r, nil
}

// validToolPattern: letters, digits, _ - . and a * at the end.
func validToolPattern(name string) bool {
	for i, c := range name {
		ok := c == '_' || c == '-' || c == '.' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' ||
			c == '*' && i == len(name)-1
		if !ok {
			return false
		}
	}
	return true
}

// MatchesTool reports whether the rule names the tool.
func (r Rule) MatchesTool(tool string) bool {
	if strings.HasSuffix(r.Tool, "*") {
		return strings.HasPrefix(tool, strings.TrimSuffix(r.Tool, "*"))
	}
	return r.Tool == tool
}

// Match reports whether the rule covers a call of tool with principal p.
func (r Rule) Match(tool, p string) bool {
	return r.MatchesTool(tool) && (r.Pattern == nil || r.Pattern.MatchString(strings.TrimSpace(p)))
}

// matchPath matches a principal that names a path: a path with ".." in it must match
// both as given and cleaned, so that write_file:src/.* does not let src/../x through.
func (r Rule) matchPath(tool, p string) bool {
	if !r.Match(tool, p) {
		return false
	}
	if !hasDotDot(p) {
		return true
	}
	return r.Match(tool, path.Clean(strings.TrimSpace(p)))
}

func hasDotDot(p string) bool {
	for _, seg := range strings.FieldsFunc(p, func(c rune) bool { return c == '/' || c == '\\' }) {
		if seg == ".." {
			return true
		}
	}
	return false
}

func (r Rule) String() string { return r.src }

// describe names the rule and where it comes from, for a reason.
func (r Rule) describe() string {
	if r.Source == "" {
		return r.src
	}
	return r.src + " from " + r.Source
}
