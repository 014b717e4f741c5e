package skill

import (
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/gantry-dev/gantry/internal/face"
	"github.com/gantry-dev/gantry/internal/permission"
	"github.com/gantry-dev/gantry/internal/tool"
)

// gantryTools are the names read_skill is told gantry knows in these tests.
var gantryTools = map[string]bool{"bash": true, "read_file": true, "write_file": true, "edit_file": true, "glob": true,
	"grep": true, "web_fetch": true, "web_search": true, "todo_write": true, "agent": true, "ask_user": true}

func known(name string) bool { return gantryTools[name] }

// Claude's names and patterns become gantry's rules; what gantry cannot read is
// ignored, never allowed more broadly.
func TestAllowedToolsTranslation(t *testing.T) {
	t.Parallel()
	home, _ := os.UserHomeDir()
	dir := "/skills/pdf"
	for entry, want := range map[string]string{
		"Bash":                      "bash",
		"Read":                      "read_file",
		"Write":                     "write_file",
		"Edit":                      "edit_file",
		"MultiEdit":                 "edit_file",
		"Glob":                      "glob",
		"Grep":                      "grep",
		"WebFetch":                  "web_fetch",
		"WebSearch":                 "web_search",
		"TodoWrite":                 "todo_write",
		"read_file":                 "read_file",
		"mcp__github__create_issue": "mcp__github__create_issue",
		"mcp__github":               "mcp__github__*",
		"Bash(git status:*)":        `bash:git status( .*)?`,
		"Bash(npm run test:unit:*)": `bash:npm run test:unit( .*)?`,
		"Bash(git diff *)":          `bash:git diff .*`,
		"Bash(make build)":          `bash:make build`,
		"Bash(python ${CLAUDE_SKILL_DIR}/scripts/fill.py:*)": `bash:python /skills/pdf/scripts/fill\.py( .*)?`,
		"Bash(*)":                           "bash",
		"Read(./docs/**)":                   `read_file:docs/.*`,
		"Read(/docs/*.md)":                  `read_file:docs/[^/]*\.md(/.*)?`,
		"Edit(*.env)":                       `edit_file:(.*/)?[^/]*\.env(/.*)?`,
		"Read(//etc/hosts)":                 `read_file:/etc/hosts(/.*)?`,
		"Read(~/notes/**)":                  `read_file:` + strings.ReplaceAll(home, ".", `\.`) + `/notes/.*`,
		"Read(${CLAUDE_SKILL_DIR}/**)":      `read_file:/skills/pdf/.*`,
		"WebFetch(domain:docs.example.com)": `web_fetch:https?://docs\.example\.com([:/?#].*)?`,
	} {
		rule, why := ruleOf(entry, dir, known)
		if rule != want || why != "" {
			t.Errorf("%s: got %q (%s), want %q", entry, rule, why, want)
			continue
		}
		if _, err := permission.ParseRule(rule); err != nil {
			t.Errorf("%s: the rule %q does not parse: %v", entry, rule, err)
		}
	}
	for entry, want := range map[string]string{
		"NotebookEdit":          "gantry has no such tool",
		"Grep(TODO)":            "gantry cannot apply a pattern to grep",
		"Bash()":                "the pattern in parentheses is empty",
		"Bash(git status":       "not a tool name, nor Tool(pattern)",
		"WebFetch(example.com)": "web_fetch takes only domain:host in parentheses",
	} {
		if rule, why := ruleOf(entry, dir, known); rule != "" || why != want {
			t.Errorf("%s: got %q (%s), want it ignored: %s", entry, rule, why, want)
		}
	}
}

// A skill in Claude's format: SKILL.md with allowed-tools, files beside it.
func gitSkill(t *testing.T, root string) string {
	t.Helper()
	return write(t, root, ".claude/skills/git-tidy/SKILL.md", `---
name: git-tidy
description: >-
  Tidies a git working tree before a commit. Use when the user asks to clean up,
  tidy, or prepare a commit, or mentions "git status" or stray files.
allowed-tools: Bash(git status:*), Bash(git diff:*), Read, NotebookEdit
---
# Tidy the tree

Run git status, then read CHECKLIST.md beside this file.
`)
}

// Issue 14, point 4: while the skill is in use, its tools run without asking in
// default mode — through the real permission engine — while a deny rule still
// refuses; the person is told once, in one line.
func TestAllowedToolsThroughTheGate(t *testing.T) {
	t.Parallel()
	root := t.TempDir()
	gitSkill(t, root)
	skills := catalog(t, filepath.Join(root, ".claude/skills"))
	gate, err := permission.NewEngine(permission.ModeDefault, nil, []string{`bash:git status --ignored.*`})
	if err != nil {
		t.Fatal(err)
	}
	gate.SetProject(root)
	bash := func(cmd string) permission.Decision {
		return gate.Check(permission.Call{Tool: "bash", Level: tool.LevelExec, Principal: cmd}).Decision
	}
	write := func(p string) permission.Decision {
		return gate.Check(permission.Call{Tool: "write_file", Level: tool.LevelWrite, Principal: p,
			Paths: []string{filepath.Join(root, p)}, Files: tool.FilesWrite}).Decision
	}
	if bash("git status --short") != permission.Ask {
		t.Fatal("git status runs without asking before the skill is read")
	}
	var notices []face.Notice
	o := Options{Allow: gate, Known: known, Notify: func(n face.Notice) { notices = append(notices, n) }}
	rs := Tool(skills, o)
	run := func() tool.Result {
		inv, msg := rs.Decode(tool.Env{}, []byte(`{"name": "git-tidy"}`))
		if msg != "" {
			t.Fatal(msg)
		}
		return inv.Run(t.Context())
	}
	res := run()
	said := "The skill git-tidy is in use: until the session ends, these run without asking (deny rules still apply): " +
		"bash:git status( .*)?, bash:git diff( .*)?, read_file. Ignored from its allowed-tools: NotebookEdit (gantry has no such tool)."
	if !reflect.DeepEqual(notices, []face.Notice{{Text: said}}) {
		t.Fatalf("notices %+v\nwant %q", notices, said)
	}
	if !strings.HasPrefix(res.Text, "Base directory for this skill: "+filepath.Join(root, ".claude/skills/git-tidy")+"\n"+said+"\n\n---\nname: git-tidy\n") {
		t.Fatalf("read_skill gave %q", res.Text)
	}
	for cmd, want := range map[string]permission.Decision{
		"git status":                     permission.Allow,
		"git status --short && git diff": permission.Allow,
		"git status --ignored":           permission.Deny, // the deny rule holds
		"git statusx":                    permission.Ask,
		"git push":                       permission.Ask,
		"git status; rm -rf build":       permission.Ask, // every command must be allowed
	} {
		if got := bash(cmd); got != want {
			t.Errorf("%q: %v, want %v", cmd, got, want)
		}
	}
	if write("notes.txt") != permission.Ask {
		t.Error("write_file runs without asking, but the skill allows only Read")
	}
	if again := run(); again.Text != res.Text || len(notices) != 1 {
		t.Fatalf("reading the skill again: %d notices, text changed: %v", len(notices), again.Text != res.Text)
	}
	allow, _ := gate.Rules()
	if len(allow) != 3 {
		t.Fatalf("rules %v", allow)
	}
}

// Without a session (no gate), allowed-tools allow nothing and say nothing.
func TestAllowedToolsWithoutSession(t *testing.T) {
	t.Parallel()
	root := t.TempDir()
	gitSkill(t, root)
	res := readSkill(t, catalog(t, filepath.Join(root, ".claude/skills")), 0, `{"name": "git-tidy"}`)
	if strings.Contains(res.Text, "without asking") {
		t.Fatalf("got %q", res.Text)
	}
}
