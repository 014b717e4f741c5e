package config

import (
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

func TestDefaults(t *testing.T) {
	e := newEnv(t)
	c, err := Load(e.root)
	if err != nil {
		t.Fatal(err)
	}
	want := Default()
	want.root = e.root
	if !reflect.DeepEqual(c, want) {
		t.Errorf("got %+v\nwant %+v", c, want)
	}
	if c.MaxOutput != 30000 || c.PreviewLines != 5 || !c.EditTools || c.Bash.Timeout != 120 ||
		c.Compact.Threshold != 0.8 || c.PermissionMode != "default" || c.MaxTurns != 0 {
		t.Errorf("defaults %+v", c)
	}
	if len(c.Files()) != 0 {
		t.Errorf("files read: %v", c.Files())
	}
	wantDirs := []string{filepath.Join(e.root, ".gantry", "skills"), filepath.Join(e.user, "skills"),
		filepath.Join(e.root, ".claude", "skills"), filepath.Join(e.home, ".claude", "skills")}
	if !reflect.DeepEqual(c.SkillDirs(), wantDirs) {
		t.Errorf("skill dirs %v, want %v", c.SkillDirs(), wantDirs)
	}
}

func TestUserThenProjectProjectWins(t *testing.T) {
	e := newEnv(t)
	uf := e.userFile(t, `
provider: anthropic
model: user-model
models:
  fast: user-fast
  good: user-good
maxOutput: 20000
previewLines: 3
bash:
  timeout: 60
mcpServers:
  shared: {command: user-cmd}
  mine: {url: "http://localhost:1"}
hooks:
  PreToolUse:
    - matcher: bash
      hooks: [{type: command, command: user-hook}]
permissions:
  allow: [read_file]
  deny: ["bash:rm -rf.*"]
systemPrompt: user prompt
`)
	pf := e.projectFile(t, `
model: project-model
models:
  fast: project-fast
previewLines: 0
editTools: false
compact: {threshold: 0.5}
mcpServers:
  shared: {command: project-cmd, args: [a]}
hooks:
  PreToolUse:
    - hooks: [{type: command, command: project-hook, onFailure: block}]
  Stop:
    - hooks: [{type: command, command: stop-hook}]
permissions:
  allow_all: true
  allow: [grep]
permissionMode: accept-edits
maxTurns: 7
appendSystemPrompt: more
`)
	sub := filepath.Join(e.root, "a", "b")
	if err := os.MkdirAll(sub, 0o755); err != nil {
		t.Fatal(err)
	}
	c, err := Load(sub)
	if err != nil {
		t.Fatal(err)
	}
	if c.Root() != e.root {
		t.Errorf("root %s, want %s", c.Root(), e.root)
	}
	if !reflect.DeepEqual(c.Files(), []string{uf, pf}) {
		t.Errorf("files %v", c.Files())
	}
	checks := []struct {
		name      string
		got, want any
	}{
		{"provider (user only)", c.Provider, "anthropic"},
		{"model (both)", c.Model, "project-model"},
		{"models.fast (both)", c.Models.Fast, "project-fast"},
		{"models.good (user only)", c.Models.Good, "user-good"},
		{"maxOutput (user only)", c.MaxOutput, 20000},
		{"previewLines set to zero by the project", c.PreviewLines, 0},
		{"editTools", c.EditTools, false},
		{"bash.timeout (user only)", c.Bash.Timeout, 60},
		{"compact.threshold", c.Compact.Threshold, 0.5},
		{"mcp server of both: the project's", c.MCPServers["shared"], MCPServer{Command: "project-cmd", Args: []string{"a"}, From: pf + ":9"}},
		{"mcp server of the user only", c.MCPServers["mine"], MCPServer{URL: "http://localhost:1", From: uf + ":13"}},
		{"hooks are added, user's first", c.Hooks["PreToolUse"], []HookMatcher{
			{Matcher: "bash", Hooks: []Hook{{Type: "command", Command: "user-hook"}}},
			{Hooks: []Hook{{Type: "command", Command: "project-hook", OnFailure: "block"}}},
		}},
		{"hooks of the project only", len(c.Hooks["Stop"]), 1},
		{"permissions", []any{c.Permissions.AllowAll, c.Permissions.Allow, c.Permissions.Deny}, []any{true, []string{"read_file", "grep"}, []string{"bash:rm -rf.*"}}},
		{"where the rules are written", []string{c.Permissions.AllowFrom(0), c.Permissions.AllowFrom(1), c.Permissions.DenyFrom(0), c.Permissions.DenyFrom(1)},
			[]string{uf + ":19", pf + ":17", uf + ":20", ""}},
		{"permissionMode", c.PermissionMode, "accept-edits"},
		{"maxTurns", c.MaxTurns, 7},
		{"systemPrompt (user only)", c.SystemPrompt, "user prompt"},
		{"appendSystemPrompt", c.AppendSystemPrompt, "more"},
		{"skillsDir untouched", c.SkillsDir, []string{".gantry/skills"}},
	}
	for _, ck := range checks {
		if !reflect.DeepEqual(ck.got, ck.want) {
			t.Errorf("%s: got %#v, want %#v", ck.name, ck.got, ck.want)
		}
	}
}

func TestProjectFileFoundFromTheGitRoot(t *testing.T) {
	e := newEnv(t)
	e.projectFile(t, "model: m\n")
	// A .gantry/config.yaml below the root is not the project's.
	write(t, filepath.Join(e.root, "sub", ".gantry", "config.yaml"), "model: wrong\n")
	c, err := Load(filepath.Join(e.root, "sub"))
	if err != nil {
		t.Fatal(err)
	}
	if c.Model != "m" {
		t.Errorf("model %q", c.Model)
	}
	// Without a .git above, the working directory is the root.
	plain := t.TempDir()
	write(t, filepath.Join(plain, ".gantry", "config.yaml"), "model: plain\n")
	c, err = Load(plain)
	if err != nil {
		t.Fatal(err)
	}
	if c.Model != "plain" || c.Root() != plain {
		t.Errorf("model %q, root %s", c.Model, c.Root())
	}
}

func TestGitFileMarksTheRoot(t *testing.T) {
	dir := t.TempDir()
	write(t, filepath.Join(dir, "wt", ".git"), "gitdir: /elsewhere\n")
	if got := ProjectRoot(filepath.Join(dir, "wt")); got != filepath.Join(dir, "wt") {
		t.Errorf("root %s", got)
	}
}

func TestSkillsDirStringOrList(t *testing.T) {
	e := newEnv(t)
	claude, userClaude := filepath.Join(e.root, ".claude", "skills"), filepath.Join(e.home, ".claude", "skills")
	for _, tc := range []struct {
		yaml string
		want []string
		dirs []string
	}{
		{"skillsDir: my/skills\n", []string{"my/skills"}, []string{filepath.Join(e.root, "my/skills"), filepath.Join(e.user, "skills"), claude, userClaude}},
		{"skillsDir: [a, ~/s, /abs]\n", []string{"a", "~/s", "/abs"}, []string{filepath.Join(e.root, "a"), filepath.Join(e.home, "s"), "/abs", filepath.Join(e.user, "skills"), claude, userClaude}},
		{"skillsDir:\n  - one\n", []string{"one"}, []string{filepath.Join(e.root, "one"), filepath.Join(e.user, "skills"), claude, userClaude}},
		{"skillsDir: []\n", []string{}, []string{filepath.Join(e.user, "skills"), claude, userClaude}},
		{"skillsDir: [.claude/skills, ~/.claude/skills]\n", []string{".claude/skills", "~/.claude/skills"}, []string{claude, userClaude, filepath.Join(e.user, "skills")}},
	} {
		e.projectFile(t, tc.yaml)
		c, err := Load(e.root)
		if err != nil {
			t.Fatalf("%q: %v", tc.yaml, err)
		}
		if !reflect.DeepEqual(c.SkillsDir, tc.want) {
			t.Errorf("%q: skillsDir %#v, want %#v", tc.yaml, c.SkillsDir, tc.want)
		}
		if !reflect.DeepEqual(c.SkillDirs(), tc.dirs) {
			t.Errorf("%q: SkillDirs %v, want %v", tc.yaml, c.SkillDirs(), tc.dirs)
		}
	}
}

func TestUserDir(t *testing.T) {
	t.Setenv("HOME", "/h")
	t.Setenv("GANTRY_CONFIG_DIR", "")
	t.Setenv("XDG_CONFIG_HOME", "")
	if got := UserDir(); got != "/h/.config/gantry" {
		t.Errorf("home: %s", got)
	}
	t.Setenv("XDG_CONFIG_HOME", "/x")
	if got := UserDir(); got != "/x/gantry" {
		t.Errorf("xdg: %s", got)
	}
	t.Setenv("GANTRY_CONFIG_DIR", "/g")
	if got := UserDir(); got != "/g" {
		t.Errorf("override: %s", got)
	}
}

func TestEmptyAndCommentOnlyFilesSetNothing(t *testing.T) {
	e := newEnv(t)
	e.userFile(t, "")
	e.projectFile(t, "# nothing yet\n")
	c, err := Load(e.root)
	if err != nil {
		t.Fatal(err)
	}
	if len(c.Files()) != 2 || c.MaxOutput != 30000 {
		t.Errorf("files %v, maxOutput %d", c.Files(), c.MaxOutput)
	}
}

func TestUnreadableFileIsAnError(t *testing.T) {
	e := newEnv(t)
	if err := os.MkdirAll(filepath.Join(e.user, "config.yaml"), 0o755); err != nil {
		t.Fatal(err)
	}
	_, err := Load(e.root)
	if err == nil || !containsAll(err.Error(), filepath.Join(e.user, "config.yaml")) {
		t.Errorf("a folder in place of the file: %v", err)
	}
}

func TestSameFileAsUserAndProjectIsReadOnce(t *testing.T) {
	e := newEnv(t)
	t.Setenv("GANTRY_CONFIG_DIR", filepath.Join(e.root, ".gantry"))
	e.projectFile(t, "hooks:\n  Stop:\n    - hooks: [{type: command, command: x}]\n")
	c, err := Load(e.root)
	if err != nil {
		t.Fatal(err)
	}
	if len(c.Files()) != 1 || len(c.Hooks["Stop"]) != 1 {
		t.Errorf("files %v, hooks %v", c.Files(), c.Hooks)
	}
}

func TestHookMatcherStarMeansEveryTool(t *testing.T) {
	dir := t.TempDir()
	t.Setenv("GANTRY_CONFIG_DIR", filepath.Join(dir, "user"))
	proj := filepath.Join(dir, "p")
	if err := os.MkdirAll(filepath.Join(proj, ".gantry"), 0o755); err != nil {
		t.Fatal(err)
	}
	os.WriteFile(filepath.Join(proj, ".gantry", "config.yaml"), []byte("hooks:\n  PostToolUse:\n    - matcher: \"*\"\n      hooks: [{type: command, command: x}]\n"), 0o644)
	cfg, err := Load(proj)
	if err != nil || cfg.Hooks["PostToolUse"][0].Matcher != "*" {
		t.Fatalf("%v %+v", err, cfg)
	}
}

func TestModelStringOrMapping(t *testing.T) {
	for _, c := range []struct {
		yaml        string
		name        string
		idle, first int
	}{
		{"model: claude-x\n", "claude-x", 0, 0},
		{"model:\n  name: gpt-y\n  streamIdleTimeout: 30\n  firstByteTimeout: 45\n", "gpt-y", 30, 45},
		{"model: {streamIdleTimeout: 5}\n", "", 5, 0},
	} {
		l, err := parse("/p/.gantry/config.yaml", []byte(c.yaml))
		if err != nil {
			t.Fatalf("%q: %v", c.yaml, err)
		}
		cfg := Default()
		l.apply(cfg)
		if cfg.Model != c.name || cfg.StreamIdleTimeout != c.idle || cfg.FirstByteTimeout != c.first {
			t.Errorf("%q: model %q, idle %d, first byte %d", c.yaml, cfg.Model, cfg.StreamIdleTimeout, cfg.FirstByteTimeout)
		}
	}
}

// The bounds of a response beside the stream's timeouts: read from the model
// mapping, checked for range with the key's own bound.
func TestModelResponseBounds(t *testing.T) {
	l, err := parse("/p/.gantry/config.yaml", []byte("model:\n  pingTimeout: 30\n  responseTimeout: 1200\n  maxRetryAfter: 15\n"))
	if err != nil {
		t.Fatal(err)
	}
	cfg := Default()
	l.apply(cfg)
	if cfg.PingTimeout != 30 || cfg.ResponseTimeout != 1200 || cfg.MaxRetryAfter != 15 {
		t.Errorf("ping %d, response %d, retry-after %d", cfg.PingTimeout, cfg.ResponseTimeout, cfg.MaxRetryAfter)
	}
	for yaml, want := range map[string]string{
		"model:\n  pingTimeout: 0\n":         `:2: key "model.pingTimeout" must be between 1 and 3600 (seconds), not 0`,
		"model:\n  responseTimeout: 90000\n": `:2: key "model.responseTimeout" must be between 1 and 86400 (seconds), not 90000`,
		"model:\n  maxRetryAfter: -1\n":      `:2: key "model.maxRetryAfter" must be between 1 and 86400 (seconds), not -1`,
		"model:\n  responseTimout: 5\n":      `unknown key "model.responseTimout"; did you mean "responseTimeout"?`,
	} {
		if _, err := parse("/p/.gantry/config.yaml", []byte(yaml)); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%q: %v", yaml, err)
		}
	}
}
