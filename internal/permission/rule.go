package permission

import (
	"fmt"
	"regexp"
	"strings"
)

// Rule is "tool" (every call of the tool) or "tool:regex" (calls whose principal
// argument the regex matches whole).
type Rule struct {
	Tool    string
	Pattern *regexp.Regexp // nil: any argument
	src     string
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
	r := Rule{Tool: name, src: s}
	if hasPat {
		re, err := regexp.Compile(`^(?:` + pat + `)$`)
		if err != nil {
			return Rule{}, fmt.Errorf("permission rule %q: bad regular expression: %v", s, err)
		}
		r.Pattern = re
	}
	return r, nil
}

// Match reports whether the rule covers a call of tool with principal p.
func (r Rule) Match(tool, p string) bool {
	if r.Tool != tool && r.Tool != "*" {
		return false
	}
	return r.Pattern == nil || r.Pattern.MatchString(strings.TrimSpace(p))
}

func (r Rule) String() string { return r.src }
