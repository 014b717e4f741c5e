package config

import (
	"path/filepath"
	"strings"
	"testing"
)

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
		{"Task", "Agent", map[string]any{"prompt": "x"}, true}, // Task is Agent since Claude Code v2.1.63
		{"Agent", "Agent", map[string]any{"prompt": "x"}, true},
		{"Agent", "Bash", map[string]any{"command": "x"}, false},
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

// The keys of a Claude Code hook: if is kept on tool events (and left out on the
// others, as Claude Code ignores it there), async and asyncRewake make the hook async,
// asyncRewake marks it too (with its rewakeMessage and rewakeSummary), and what gantry cannot do is said: an if it cannot read
// and a shell other than bash skip the hook, once runs it with a sentence.
func TestClaudeHookKeys(t *testing.T) {
	e := newEnv(t)
	write(t, filepath.Join(e.home, ".claude", "settings.json"), `{"hooks": {
  "PreToolUse": [{"matcher": "Bash", "hooks": [
    {"type": "command", "command": "a", "if": "Bash(git commit:*)", "async": true, "statusMessage": "Checking the commit…"},
    {"type": "command", "command": "b", "if": "Frobnicate(x)"},
    {"type": "command", "command": "c", "shell": "powershell"},
    {"type": "command", "command": "d", "asyncRewake": true, "once": true,
     "rewakeMessage": " Review the findings below: ", "rewakeSummary": "Review found issues"}
  ]}],
  "Stop": [{"hooks": [{"type": "command", "command": "e", "if": "Bash(ls:*)"}]}]
}}`)
	c, err := Load(e.root)
	if err != nil {
		t.Fatal(err)
	}
	pre := c.Hooks["PreToolUse"]
	if len(pre) != 1 || len(pre[0].Hooks) != 2 {
		t.Fatalf("PreToolUse hooks %+v", pre)
	}
	a, d := pre[0].Hooks[0], pre[0].Hooks[1]
	if a.Command != "a" || a.If == nil || a.If.Rule != "Bash(git commit:*)" || !a.Async {
		t.Errorf("a: %+v", a)
	}
	if a.AsyncRewake || d.Command != "d" || d.If != nil || !d.Async || !d.AsyncRewake {
		t.Errorf("d: %+v", d)
	}
	if a.StatusMessage != "Checking the commit…" || d.StatusMessage != "" {
		t.Errorf("statusMessage: %q, %q", a.StatusMessage, d.StatusMessage)
	}
	if d.RewakeMessage != "Review the findings below:" || d.RewakeSummary != "Review found issues" || a.RewakeMessage != "" {
		t.Errorf("rewakeMessage and rewakeSummary: %+v", d)
	}
	if stop := c.Hooks["Stop"]; len(stop) != 1 || stop[0].Hooks[0].If != nil {
		t.Errorf("Stop hooks %+v", stop)
	}
	skipped := strings.Join(c.Claude.Files[0].Skipped, "\n")
	for _, want := range []string{`its if "Frobnicate(x)" cannot be read`, "runs with powershell", "has once"} {
		if !strings.Contains(skipped, want) {
			t.Errorf("skipped lacks %q:\n%s", want, skipped)
		}
	}
	for _, key := range []string{"asyncRewake", "rewakeMessage", "rewakeSummary", "statusMessage"} {
		if strings.Contains(skipped, key) {
			t.Errorf("%s is said as not supported:\n%s", key, skipped)
		}
	}
}
