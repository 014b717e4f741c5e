package config

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// claudeProject makes a project (a git root) and a Claude user folder, writes the
// files (paths relative to the project; "~/" ones to the user folder) and loads it.
func claudeProject(t *testing.T, files map[string]string) (*Config, error) {
	t.Helper()
	return Load(claudeFolder(t, files))
}

// claudeFolder is claudeProject without the loading: the project's root.
func claudeFolder(t *testing.T, files map[string]string) string {
	t.Helper()
	root, user := t.TempDir(), t.TempDir()
	t.Setenv("CLAUDE_CONFIG_DIR", user)
	t.Setenv("GANTRY_CONFIG_DIR", t.TempDir())
	files[".git/HEAD"] = "ref: refs/heads/main\n"
	for name, text := range files {
		p := filepath.Join(root, name)
		if rest, ok := strings.CutPrefix(name, "~/"); ok {
			p = filepath.Join(user, rest)
		}
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return root
}

// skippedOf is every sentence said of the settings files, one a line.
func skippedOf(c *Config) string {
	var out []string
	for _, f := range c.Claude.Files {
		out = append(out, f.Skipped...)
	}
	return strings.Join(out, "\n")
}

// A user's settings with hooks in the old flat shape (a matcher that is an object)
// beside good ones: the flat entries are skipped and said, the file's other hooks
// and keys are taken.
func TestClaudeFlatHooksSkipped(t *testing.T) {
	c, err := claudeProject(t, map[string]string{"~/settings.json": `{
  "model": "sonnet",
  "hooks": {
    "UserPromptSubmit": [
      {"type": "command", "command": "bash ~/.claude/hooks/on-prompt.sh"}
    ],
    "PreToolUse": [
      {"type": "command", "command": "bash ~/.claude/hooks/no-find.sh", "matcher": {"tool_name": "Bash"}},
      {"matcher": "Edit", "hooks": [{"type": "command", "command": "fmt.sh"}]}
    ],
    "Stop": [{"hooks": [{"type": "command", "command": "done.sh", "timeout": "10"}, {"type": "command", "command": "bell.sh"}]}]
  },
  "env": {"EDITOR": "vim"}
}`})
	if err != nil {
		t.Fatalf("a malformed hook stopped gantry: %v", err)
	}
	if h := c.Hooks["PreToolUse"]; len(h) != 1 || h[0].Matcher != "Edit" || h[0].Hooks[0].Command != "fmt.sh" {
		t.Errorf("PreToolUse %+v: the good group is kept", h)
	}
	if h := c.Hooks["Stop"]; len(h) != 1 || len(h[0].Hooks) != 1 || h[0].Hooks[0].Command != "bell.sh" {
		t.Errorf("Stop %+v: the hook whose timeout is a string is skipped, its neighbour kept", h)
	}
	if len(c.Hooks["UserPromptSubmit"]) != 0 || c.Claude.Env["EDITOR"] != "vim" {
		t.Errorf("UserPromptSubmit %+v, env %v", c.Hooks["UserPromptSubmit"], c.Claude.Env)
	}
	said := skippedOf(c)
	for _, want := range []string{
		`hooks.PreToolUse[0] was skipped: it is a hook written without its matcher group, an old shape Claude Code no longer reads; write it as {"matcher": "Bash", "hooks": [`,
		`hooks.UserPromptSubmit[0] was skipped: it is a hook written without its matcher group, an old shape Claude Code no longer reads; write it as {"hooks": [`,
		"hooks.Stop[0].hooks[0] was skipped: its timeout is a string, where Claude Code has a number",
	} {
		if !strings.Contains(said, want) {
			t.Errorf("notices %q lack %q", said, want)
		}
	}
}

// Per-entry shape errors in permissions and env skip the entry, never the file; a
// file that is not JSON is still an error naming it.
func TestClaudeBadEntriesSkipped(t *testing.T) {
	c, err := claudeProject(t, map[string]string{"~/settings.json": `{
  "permissions": {
    "allow": ["Bash(npm run test:*)", 42, "Read"],
    "deny": [{"tool": "Bash"}, "Read(./.env)"],
    "additionalDirectories": "../shared"
  },
  "env": {"DEBUG": true, "NODE_ENV": "test"}
}`})
	if err != nil {
		t.Fatalf("a bad entry stopped gantry: %v", err)
	}
	if len(c.Permissions.Allow) != 2 || len(c.Permissions.Deny) != 1 {
		t.Errorf("allow %q deny %q: the good rules are kept", c.Permissions.Allow, c.Permissions.Deny)
	}
	if c.Claude.Env["NODE_ENV"] != "test" || len(c.Claude.Env) != 1 {
		t.Errorf("env %v", c.Claude.Env)
	}
	said := skippedOf(c)
	for _, want := range []string{
		"permissions.allow[1] was skipped: it is a number, where Claude Code has a string",
		"permissions.deny[0] was skipped: it is an object",
		"env.DEBUG was skipped: its value is true or false, where Claude Code has a string",
	} {
		if !strings.Contains(said, want) {
			t.Errorf("notices %q lack %q", said, want)
		}
	}

	_, err = claudeProject(t, map[string]string{".claude/settings.json": "{\n  \"hooks\": {,\n}"})
	if err == nil || !strings.Contains(err.Error(), "settings.json:2") {
		t.Errorf("a file that is not JSON: %v", err)
	}
}

// Hook keys gantry does not know are named in one notice of the file, with a word
// on an if written on the matcher group; asyncRewake's keys are not named.
func TestClaudeUnknownHookKeys(t *testing.T) {
	c, err := claudeProject(t, map[string]string{".claude/settings.local.json": `{
  "hooks": {
    "PreToolUse": [
      {
        "matcher": "Write|Edit",
        "description": "Writes to the workspace are refused.",
        "if": "Edit(*.md)",
        "hooks": [{"type": "command", "command": "guard.sh", "blocking": true, "timeout": 3}]
      }
    ],
    "PostToolUse": [
      {"matcher": "Bash", "hooks": [{"type": "command", "command": "lint.sh", "asyncRewake": true, "rewakeMessage": "lint failed", "rewakeSummary": "lint"}]}
    ]
  }
}`})
	if err != nil {
		t.Fatal(err)
	}
	if len(c.Hooks["PreToolUse"]) != 1 || len(c.Hooks["PostToolUse"]) != 1 {
		t.Errorf("hooks %+v: every hook is kept", c.Hooks)
	}
	var notices []string
	for _, s := range c.Claude.Files[len(c.Claude.Files)-1].Skipped {
		if strings.Contains(s, "hook keys") {
			notices = append(notices, s)
		}
	}
	if len(notices) != 1 {
		t.Fatalf("want one notice of hook keys, got %q", notices)
	}
	for _, want := range []string{"hooks.PreToolUse[0].description", "hooks.PreToolUse[0].hooks[0].blocking", "hooks.PreToolUse[0].if (", "Claude Code ignores it on the matcher group too"} {
		if !strings.Contains(notices[0], want) {
			t.Errorf("%q lacks %q", notices[0], want)
		}
	}
	if strings.Contains(notices[0], "rewake") {
		t.Errorf("%q names asyncRewake's keys", notices[0])
	}
}

// A deny rule naming a Claude tool gantry lacks refuses to start, saying which file,
// which rule and how to remove it.
func TestClaudeDenyGantryLacks(t *testing.T) {
	_, err := claudeProject(t, map[string]string{".claude/settings.json": `{"permissions": {"deny": ["Read(./.env)", "NotebookEdit"]}}`})
	if err == nil {
		t.Fatal("a deny rule gantry cannot keep was dropped")
	}
	for _, want := range []string{".claude/settings.json", `"NotebookEdit" (permissions.deny[1])`, "remove it from this file's permissions.deny"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("%q lacks %q", err, want)
		}
	}
}
