package skill

import (
	"fmt"
	"os"
	"regexp"
	"strings"
	"sync"
)

// Allower keeps allow rules ("tool" or "tool:regex") for the rest of the session: the
// session's permission gate (permission.Engine.AllowForSession). An error says why a
// rule was refused.
type Allower interface {
	AllowForSession(rules []string) error
}

// claudeTools maps Claude Code's tool names, as a skill's allowed-tools writes them,
// to gantry's.
var claudeTools = map[string]string{
	"bash":            "bash",
	"read":            "read_file",
	"write":           "write_file",
	"edit":            "edit_file",
	"multiedit":       "edit_file",
	"glob":            "glob",
	"grep":            "grep",
	"webfetch":        "web_fetch",
	"websearch":       "web_search",
	"todowrite":       "todo_write",
	"task":            "agent",
	"agent":           "agent",
	"askuserquestion": "ask_user",
}

// allowance is what a skill's allowed-tools come to: the rules kept for the session
// and the entries ignored, each with why.
type allowance struct {
	rules   []string
	ignored []string
}

// allowanceOf translates the allowed-tools of s into gantry's permission rules. A
// tool is named by Claude's name (Bash, Read, Write, Edit, MultiEdit, Glob, Grep,
// WebFetch, WebSearch, TodoWrite, Task, AskUserQuestion) or gantry's (one that known
// accepts; nil accepts every name), or an MCP tool (mcp__server__tool; mcp__server
// for all of a server's). A pattern in parentheses narrows it:
//   - bash: `git status:*` is the command prefix `git status` (with any arguments or
//     none), a pattern with `*` matches any text there, another is the command exactly;
//   - read_file, write_file, edit_file: a path in gitignore style, as Claude writes
//     them: `src/**`, `./docs/*.md` and `/docs/**` are relative to the project root,
//     `//abs/**` is absolute, `~/x` in the home folder;
//   - web_fetch: `domain:example.com`, the URLs of that host;
//
// and in any pattern ${CLAUDE_SKILL_DIR} is the skill's folder. An entry gantry
// cannot read, or a pattern on another tool, is ignored: never allowed more broadly.
func allowanceOf(s Skill, known func(string) bool) allowance {
	var a allowance
	seen := map[string]bool{}
	for _, entry := range s.AllowedTools {
		rule, why := ruleOf(entry, s.Dir(), known)
		switch {
		case why != "":
			a.ignored = append(a.ignored, entry+" ("+why+")")
		case !seen[rule]:
			seen[rule] = true
			a.rules = append(a.rules, rule)
		}
	}
	return a
}

var entryForm = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^([A-Za-z0-9_.*-]+)(?:\((.*)\))?$`) })

// ruleOf is the rule of one entry, or why it is ignored.
func ruleOf(entry, dir string, known func(string) bool) (rule, why string) {
	m := entryForm().FindStringSubmatch(strings.TrimSpace(entry))
	if m == nil {
		return "", "not a tool name, nor Tool(pattern)"
	}
	name, hasPattern := m[1], strings.Contains(entry, "(")
	pattern := strings.TrimSpace(m[2])
	t, ok := toolOf(name, known)
	if !ok {
		return "", "gantry has no such tool"
	}
	if !hasPattern || pattern == "*" {
		return t, ""
	}
	if pattern == "" {
		return "", "the pattern in parentheses is empty"
	}
	switch t {
	case "bash":
		return "bash:" + commandPattern(skillDir(pattern, dir, "")), ""
	case "read_file", "write_file", "edit_file":
		p, why := pathPattern(skillDir(pattern, dir, "/")) // //abs: absolute
		if why != "" {
			return "", why
		}
		return t + ":" + p, ""
	case "web_fetch":
		host, ok := strings.CutPrefix(pattern, "domain:")
		if !ok || strings.TrimSpace(host) == "" || strings.ContainsAny(host, "/ ") {
			return "", "web_fetch takes only domain:host in parentheses"
		}
		return "web_fetch:https?://" + globRegexp(strings.ToLower(strings.TrimSpace(host)), "[^/:]*") + "([:/?#].*)?", ""
	}
	return "", "gantry cannot apply a pattern to " + t
}

// skillDir replaces ${CLAUDE_SKILL_DIR} in a pattern with lead and the skill's folder.
func skillDir(pattern, dir, lead string) string {
	if dir == "" {
		return pattern
	}
	return strings.ReplaceAll(pattern, "${CLAUDE_SKILL_DIR}", lead+dir)
}

// toolOf is gantry's name for a tool of allowed-tools.
func toolOf(name string, known func(string) bool) (string, bool) {
	isKnown := func(n string) bool { return known == nil || known(n) }
	if strings.HasPrefix(name, "mcp__") {
		if !strings.Contains(strings.TrimPrefix(name, "mcp__"), "__") {
			return name + "__*", true // a whole server, as Claude writes it
		}
		return name, true // a server that is not connected yet is no error
	}
	if isKnown(name) && !strings.Contains(name, "*") {
		return name, true
	}
	if t, ok := claudeTools[strings.ToLower(name)]; ok && isKnown(t) {
		return t, true
	}
	return "", false
}

// commandPattern is the regex of a Claude Bash pattern: `prefix:*`, a pattern with
// `*`, or a command exactly.
func commandPattern(p string) string {
	if prefix, ok := strings.CutSuffix(p, ":*"); ok {
		prefix = strings.TrimSpace(prefix)
		if prefix == "" {
			return ".*"
		}
		return regexp.QuoteMeta(prefix) + "( .*)?"
	}
	if strings.Contains(p, "*") {
		return globRegexp(p, ".*")
	}
	return regexp.QuoteMeta(p)
}

// globRegexp quotes p with each * standing for star.
func globRegexp(p, star string) string {
	parts := strings.Split(p, "*")
	for i, s := range parts {
		parts[i] = regexp.QuoteMeta(s)
	}
	return strings.Join(parts, star)
}

// pathPattern is the regex of a Claude path pattern (gitignore style): relative to the
// project root, or absolute for //abs and ~/x. A name without a slash matches at any
// depth, and a pattern that names a folder covers what is inside it.
func pathPattern(p string) (string, string) {
	switch {
	case strings.HasPrefix(p, "//"):
		p = p[1:]
	case p == "~" || strings.HasPrefix(p, "~/"):
		home, err := os.UserHomeDir()
		if err != nil || home == "" {
			return "", "there is no home folder for ~"
		}
		p = home + p[1:]
	case strings.HasPrefix(p, "/"):
		p = strings.TrimLeft(p, "/") // Claude: relative to the project
	}
	p = strings.TrimPrefix(p, "./")
	if strings.Trim(p, "/") == "" {
		return "", "the path is empty"
	}
	if strings.HasSuffix(p, "/") {
		p += "**"
	}
	var b strings.Builder
	if !strings.HasPrefix(p, "/") && !strings.Contains(p, "/") {
		b.WriteString("(.*/)?") // a bare name matches at any depth
	}
	for i := 0; i < len(p); {
		switch {
		case strings.HasPrefix(p[i:], "**/"):
			b.WriteString("(.*/)?")
			i += 3
		case strings.HasPrefix(p[i:], "**"):
			b.WriteString(".*")
			i += 2
		case p[i] == '*':
			b.WriteString("[^/]*")
			i++
		case p[i] == '?':
			b.WriteString("[^/]")
			i++
		default:
			j := i
			for j < len(p) && p[j] != '*' && p[j] != '?' {
				j++
			}
			b.WriteString(regexp.QuoteMeta(p[i:j]))
			i = j
		}
	}
	if !strings.HasSuffix(p, "*") {
		b.WriteString("(/.*)?") // a folder: what is inside it
	}
	return b.String(), ""
}

// describeAllowance is the sentence of what a skill allowed, for the person and for
// the model.
func describeAllowance(name string, a allowance) string {
	var b strings.Builder
	if len(a.rules) > 0 {
		fmt.Fprintf(&b, "The skill %s is in use: until the session ends, these run without asking (deny rules still apply): %s.", name, strings.Join(a.rules, ", "))
	} else {
		fmt.Fprintf(&b, "The skill %s allows no tool.", name)
	}
	if len(a.ignored) > 0 {
		fmt.Fprintf(&b, " Ignored from its allowed-tools: %s.", strings.Join(a.ignored, "; "))
	}
	return b.String()
}
