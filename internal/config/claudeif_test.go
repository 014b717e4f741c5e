package config

import "testing"

// A hook's if matches a call as Claude Code names it: its tool (or the tool's family:
// Edit covers Write, Read covers Grep) and the rule's argument — a command prefix
// anywhere in a compound command, a path pattern of the project, a domain and its
// subdomains only, every tool of an MCP server.
func TestClaudeIfMatches(t *testing.T) {
	root := "/src/proj"
	for _, c := range []struct {
		rule  string
		name  string
		input map[string]any
		want  bool
	}{
		{"Bash(git commit:*)", "Bash", map[string]any{"command": "git commit -m x"}, true},
		{"Bash(git commit:*)", "Bash", map[string]any{"command": "echo hi"}, false},
		{"Bash(git commit:*)", "Bash", map[string]any{"command": "git add . && git commit -m x"}, true},
		{"Bash(git commit:*)", "Bash", map[string]any{"command": "git commitx"}, false},
		{"Bash(git commit:*)", "Write", map[string]any{"file_path": "/src/proj/a"}, false},
		{"Bash", "Bash", map[string]any{"command": "anything"}, true},
		{"Edit(*.py)", "Write", map[string]any{"file_path": "/src/proj/pkg/a.py"}, true},
		{"Edit(*.py)", "Edit", map[string]any{"file_path": "/src/proj/a.txt"}, false},
		{"Edit(src/**)", "Edit", map[string]any{"file_path": "/src/proj/src/x/y.go"}, true},
		{"Edit(src/**)", "Edit", map[string]any{"file_path": "/src/proj/lib/y.go"}, false},
		{"Read(./.env)", "Grep", map[string]any{"pattern": "x", "path": "/src/proj/.env"}, true},
		{"WebFetch(domain:example.com)", "WebFetch", map[string]any{"url": "https://docs.example.com/a"}, true},
		{"WebFetch(domain:example.com)", "WebFetch", map[string]any{"url": "https://example.com.evil.net/"}, false},
		{"WebFetch(domain:example.com)", "WebFetch", map[string]any{"url": "https://evil.net/?example.com"}, false},
		{"mcp__github", "mcp__github__create_issue", nil, true},
		{"mcp__github", "mcp__gitlab__create_issue", nil, false},
	} {
		cond, err := ParseClaudeIf(c.rule, root)
		if err != nil {
			t.Fatalf("%s: %v", c.rule, err)
		}
		if got := cond.Matches(c.name, c.input); got != c.want {
			t.Errorf("%s on %s %v: %v, want %v", c.rule, c.name, c.input, got, c.want)
		}
	}
	if _, err := ParseClaudeIf("Frobnicate(x)", root); err == nil {
		t.Error("an unknown tool's rule was read")
	}
}
