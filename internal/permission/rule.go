package permission

import (
	"errors"
	"fmt"
	"path"
	"regexp"
	"regexp/syntax"
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
	pat    string // the pattern as written
	prefix string // the literal text every match of the pattern begins with
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
	if d, ok := strings.CutPrefix(pat, "domain:"); ok && hasPat {
		dp, err := domainPattern(d)
		if err != nil {
			return Rule{}, fmt.Errorf("permission rule %q: %v", s, err)
		}
		pat = dp
	}
	r := Rule{Tool: name, src: s, pat: pat}
	if hasPat {
		if pat == "" {
			return Rule{}, fmt.Errorf("permission rule %q has an empty regular expression (write just %q for every call)", s, name)
		}
		// The pattern alone first, so that an error quotes it as written.
		alone, err := regexp.Compile(pat)
		if err != nil {
			return Rule{}, fmt.Errorf("permission rule %q has a bad regular expression: %s", s, regexpProblem(err))
		}
		r.prefix, _ = alone.LiteralPrefix()
		// (?s): a newline inside an argument ("mv a\nb") is matched by . like any
		// other character, so that `mv .*` still covers it.
		re, err := regexp.Compile(`^(?s:` + pat + `)$`)
		if err != nil {
			return Rule{}, fmt.Errorf("permission rule %q has a bad regular expression: %s", s, regexpProblem(err))
		}
		r.Pattern = re
	}
	return r, nil
}

// regexpProblem says what is wrong in a pattern, without the package's prefix.
func regexpProblem(err error) string {
	var se *syntax.Error
	if errors.As(err, &se) {
		return fmt.Sprintf("%s in %q", se.Code, se.Expr)
	}
	return strings.TrimPrefix(err.Error(), "error parsing regexp: ")
}

// ParseRuleFrom parses a rule written at source ("file:line", "--allow") and keeps
// the source in it; an error names the source.
func ParseRuleFrom(s, source string) (Rule, error) {
	r, err := ParseRule(s)
	if err != nil {
		msg := strings.TrimPrefix(err.Error(), "permission ")
		if source == "" {
			return Rule{}, errors.New(msg)
		}
		return Rule{}, fmt.Errorf("%s: %s", source, msg)
	}
	r.Source = source
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

// absolute reports whether the rule's pattern is an absolute path: it is matched
// against the absolute paths of a call, not its principal as typed.
func (r Rule) absolute() bool { return r.Pattern != nil && strings.HasPrefix(r.pat, "/") }

// denies reports whether a deny rule covers c (principal p): any of its paths, for an
// absolute rule, or its principal as given and cleaned.
func (r Rule) denies(c Call, p string) bool {
	if r.absolute() && len(c.Paths) > 0 {
		if !r.MatchesTool(c.Tool) {
			return false
		}
		for _, x := range c.Paths {
			if r.Pattern.MatchString(path.Clean(x)) {
				return true
			}
		}
		return false
	}
	return r.Match(c.Tool, p) || hasDotDot(p) && r.Match(c.Tool, path.Clean(p))
}

// allows reports whether an allow rule covers c: every one of its paths, for an
// absolute rule, or its principal.
func (r Rule) allows(c Call, p string) bool {
	if r.absolute() && len(c.Paths) > 0 {
		if !r.MatchesTool(c.Tool) {
			return false
		}
		for _, x := range c.Paths {
			if !r.Pattern.MatchString(path.Clean(x)) {
				return false
			}
		}
		return true
	}
	return r.matchPath(c.Tool, p)
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
