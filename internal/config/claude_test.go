package config

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

func TestClaudeRule(t *testing.T) {
	root := "/p"
	for _, c := range []struct {
		rule, want string
		match      []string // principals the gantry rule's pattern matches
		miss       []string
	}{
		{"Bash", "bash", nil, nil},
		{"Bash(npm run test:*)", `bash:npm run test(\s.*)?`, []string{"npm run test", "npm run test --watch"}, []string{"npm run testing", "npm run build"}},
		{"Bash(rm *)", `bash:rm .*`, []string{"rm -rf x"}, []string{"rmdir x"}},
		{"Bash(git status)", `bash:git status`, []string{"git status"}, []string{"git status -s"}},
		{"Read(./.env)", `read_file:\.env(/.*)?`, []string{".env"}, []string{"a/.env", ".envrc"}},
		{"Read(.env)", `read_file:(.*/)?\.env(/.*)?`, []string{".env", "a/b/.env"}, []string{"x.env"}},
		{"Edit(src/**)", `write_file:src/.*(/.*)?`, []string{"src/a", "src/b/c.go"}, []string{"lib/a"}},
		{"Edit(src/**/*.go)", "", []string{"src/a.go", "src/x/y/b.go"}, []string{"src/a.txt", "lib/a.go"}},
		{"Write(//etc/hosts)", "", []string{"/etc/hosts"}, []string{"etc/hosts"}},
		{"Write(/secret/x)", "", []string{"secret/x"}, []string{"a/secret/x"}},
		{"Write(//p/secret/x)", "write_file:secret/x(/.*)?", []string{"secret/x"}, nil},
		{"WebFetch(domain:example.com)", "", []string{"https://example.com/a", "http://docs.example.com", "https://example.com:8443/"}, []string{"https://example.com.evil.org/", "https://notexample.com/"}},
		{"mcp__github", "mcp__github__*", nil, nil},
		{"mcp__github__create_issue", "mcp__github__create_issue", nil, nil},
		{"Task", "agent", nil, nil},
		{"Agent", "agent", nil, nil}, // Claude Code's name for Task since v2.1.63
		{"Agent(Explore)", "agent:Explore", []string{"Explore"}, []string{"Explorer", "general-purpose"}},
		{"Task(feature-dev:code-reviewer)", "agent:feature-dev:code-reviewer", []string{"feature-dev:code-reviewer"}, []string{"code-reviewer"}},
		{"Skill", "read_skill", nil, nil},
		{"Skill(commit)", "read_skill:commit", []string{"commit"}, []string{"commit-push", "precommit"}},
		{"Skill(review:*)", "", []string{"review", "review pr"}, []string{"reviewer"}},
		{"ExitPlanMode", "exit_plan_mode", nil, nil},
		{"BashOutput", "task_output", nil, nil},
		{"KillShell", "task_kill", nil, nil},
	} {
		got, err := ClaudeRule(c.rule, root)
		if err != nil {
			t.Errorf("%s: %v", c.rule, err)
			continue
		}
		if c.want != "" && got != c.want {
			t.Errorf("%s = %q, want %q", c.rule, got, c.want)
		}
		_, pat, _ := strings.Cut(got, ":")
		re := regexp.MustCompile("^(?s:" + pat + ")$")
		for _, m := range c.match {
			if !re.MatchString(m) {
				t.Errorf("%s (%s) does not match %q", c.rule, got, m)
			}
		}
		for _, m := range c.miss {
			if re.MatchString(m) {
				t.Errorf("%s (%s) matches %q", c.rule, got, m)
			}
		}
	}
	for _, bad := range []string{"NotebookEdit(x.ipynb)", "Bash(ls", "WebFetch(example.com)", "mcp__x(y)", "Frobnicate", "SlashCommand(/commit)"} {
		if _, err := ClaudeRule(bad, root); err == nil {
			t.Errorf("%s: no error", bad)
		}
	}
}

func TestClaudeSettingsFiles(t *testing.T) {
	root := t.TempDir()
	if err := os.Mkdir(filepath.Join(root, ".git"), 0o755); err != nil {
		t.Fatal(err)
	}
	user := t.TempDir()
	t.Setenv("CLAUDE_CONFIG_DIR", user)
	t.Setenv("GANTRY_CONFIG_DIR", t.TempDir())
	write := func(p, s string) {
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(s), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write(filepath.Join(user, "settings.json"), `{"model": "opus", "env": {"A": "user", "B": "user"},
	 "permissions": {"allow": ["Bash(ls:*)", "NotebookEdit"]}}`)
	write(filepath.Join(root, ".claude", "settings.json"), `{
	  "hooks": {
	    "PreToolUse": [{"matcher": "Bash", "hooks": [{"type": "command", "command": "check.sh", "timeout": 5}]}],
	    "PermissionRequest": [{"hooks": [{"type": "command", "command": "x"}]}]
	  },
	  "permissions": {"deny": ["Read(./.env)"], "ask": ["Bash(git push:*)"]},
	  "statusLine": {"type": "command", "command": "y"}
	}`)
	write(filepath.Join(root, ".claude", "settings.local.json"), `{"env": {"B": "local"}}`)
	c, err := Load(root)
	if err != nil {
		t.Fatal(err)
	}
	if len(c.Claude.Files) != 3 {
		t.Fatalf("files: %+v", c.Claude.Files)
	}
	if c.Claude.Env["A"] != "user" || c.Claude.Env["B"] != "local" {
		t.Errorf("env %v: the local file wins", c.Claude.Env)
	}
	h := c.Hooks["PreToolUse"]
	if len(h) != 1 || !h[0].Claude || h[0].Matcher != "Bash" || h[0].Hooks[0].Timeout != 5 || !strings.HasSuffix(h[0].From, "settings.json") {
		t.Errorf("hooks %+v", h)
	}
	if len(c.Permissions.Allow) != 1 || len(c.Permissions.Deny) != 1 || len(c.Permissions.Ask) != 1 {
		t.Errorf("permissions %+v", c.Permissions)
	}
	if !strings.Contains(strings.Join(c.Claude.Files[0].Skipped, " "), "NotebookEdit") ||
		!strings.Contains(strings.Join(c.Claude.Files[1].Skipped, " "), "PermissionRequest") {
		t.Errorf("skipped: %+v", c.Claude.Files)
	}

	// A deny rule gantry cannot keep, or a file that is not JSON, is an error naming it.
	write(filepath.Join(root, ".claude", "settings.local.json"), `{"permissions": {"deny": ["NotebookEdit(a.ipynb)"]}}`)
	if _, err := Load(root); err == nil || !strings.Contains(err.Error(), "settings.local.json") || !strings.Contains(err.Error(), "cannot be kept") {
		t.Errorf("an inexpressible deny rule: %v", err)
	}
	write(filepath.Join(root, ".claude", "settings.local.json"), "{\n  \"env\": {\n    \"A\": 1\n  }\n}")
	if c, err := Load(root); err != nil || !strings.Contains(strings.Join(c.Claude.Files[2].Skipped, " "), "env.A was skipped") {
		t.Errorf("a value of a wrong type is skipped and said: %v", err)
	}
	write(filepath.Join(root, ".claude", "settings.local.json"), "{\n  \"env\": {\n    \"A\": \n  }\n}")
	if _, err := Load(root); err == nil || !strings.Contains(err.Error(), "settings.local.json:4") {
		t.Errorf("a file that is not JSON: %v", err)
	}
}
