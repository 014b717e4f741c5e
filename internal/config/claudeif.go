package config

import (
	"fmt"
	"net/url"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
)

// ClaudeIf is a Claude Code hook's `if`: a permission rule (Bash(git commit:*),
// Edit(*.py), WebFetch(domain:example.com), mcp__github) that a tool call must match
// for the hook to run. It concerns tool events only.
type ClaudeIf struct {
	Rule  string   // as written
	names []string // the Claude tool names it covers; a name ending in * is a prefix
	re    *regexp.Regexp
	field string // the tool_input field the pattern is matched on
	root  string // the project, which relative path patterns are of
}

// claudeIfFamilies are the Claude tools a rule of one of them covers, as in Claude
// Code's permission rules: an Edit rule covers every tool that writes files, a Read
// rule every tool that reads them.
var claudeIfFamilies = map[string][]string{
	"Edit": {"Edit", "Write", "MultiEdit", "NotebookEdit"}, "Write": {"Edit", "Write", "MultiEdit", "NotebookEdit"},
	"MultiEdit": {"Edit", "Write", "MultiEdit", "NotebookEdit"}, "Read": {"Read", "Glob", "Grep"},
	"Agent": {"Agent", "Task"}, "Task": {"Agent", "Task"}, // Claude Code's Task is Agent since v2.1.63
}

// ParseClaudeIf reads a hook's `if` for the project at root; a rule gantry cannot
// read is an error saying why.
func ParseClaudeIf(rule, root string) (*ClaudeIf, error) {
	c := &ClaudeIf{Rule: strings.TrimSpace(rule), root: root}
	name, _, _ := strings.Cut(c.Rule, "(")
	g, err := ClaudeRule(c.Rule, root)
	if err != nil {
		return nil, err
	}
	switch {
	case strings.HasPrefix(name, "mcp__"):
		c.names = []string{g}
	case claudeIfFamilies[name] != nil:
		c.names = claudeIfFamilies[name]
	default:
		c.names = []string{name}
	}
	_, pat, hasPat := strings.Cut(g, ":")
	if !hasPat || strings.HasPrefix(name, "mcp__") {
		return c, nil
	}
	if c.re, err = regexp.Compile(`^(?s:` + pat + `)$`); err != nil {
		return nil, fmt.Errorf("its pattern cannot be read: %w", err)
	}
	switch name {
	case "Bash":
		c.field = "command"
	case "WebFetch":
		c.field = "url"
	default:
		c.field = "file_path"
	}
	return c, nil
}

// compound splits a command at &&, ||, ;, | and newlines, so that a Bash rule
// matches a command anywhere in a compound one, as Claude Code's rules do.
var compound = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`\s*(?:&&|\|\||;|\||\n)\s*`) })

// Matches tells whether a call, as Claude Code names it (its tool name and
// tool_input), matches the rule.
func (c *ClaudeIf) Matches(name string, input map[string]any) bool {
	named := false
	for _, n := range c.names {
		if n == name || strings.HasSuffix(n, "*") && strings.HasPrefix(name, strings.TrimSuffix(n, "*")) {
			named = true
		}
	}
	if !named {
		return false
	}
	if c.re == nil {
		return true
	}
	arg, _ := input[c.field].(string)
	if c.field == "file_path" && arg == "" {
		arg, _ = input["path"].(string) // Glob's and Grep's folder
	}
	switch c.field {
	case "command":
		for _, part := range append([]string{arg}, compound().Split(arg, -1)...) {
			if part = strings.TrimSpace(part); part != "" && c.re.MatchString(part) {
				return true
			}
		}
		return false
	case "url":
		return c.re.MatchString(arg) && c.hostOK(arg)
	}
	if arg == "" {
		return false
	}
	if c.root != "" && filepath.IsAbs(arg) {
		if rel, err := filepath.Rel(c.root, arg); err == nil && rel != ".." && !strings.HasPrefix(rel, "../") {
			arg = filepath.ToSlash(rel)
		}
	}
	return c.re.MatchString(arg)
}

// hostOK checks the url parses with a host: the pattern's text match is not fooled
// by a user part (https://example.com@evil.net/).
func (c *ClaudeIf) hostOK(raw string) bool {
	u, err := url.Parse(raw)
	return err == nil && u.Host != "" && u.User == nil
}
