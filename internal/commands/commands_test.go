package commands

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

func write(t *testing.T, path, text string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
}

func byName(cmds []Command) map[string]Command {
	m := map[string]Command{}
	for _, c := range cmds {
		m[c.Name] = c
	}
	return m
}

// TestFindEveryFolder reads a Claude-shaped project folder with a namespace, gantry's
// project and user folders, Claude's user folder and Codex's prompts.
func TestFindEveryFolder(t *testing.T) {
	root, user, claude, codex := t.TempDir(), t.TempDir(), t.TempDir(), t.TempDir()
	write(t, filepath.Join(root, ".claude/commands/frontend/build.md"), "---\ndescription: Build the UI\nargument-hint: [target] [mode]\nallowed-tools: Bash(npm run:*), Read\nmodel: claude-haiku-4-5\ndisable-model-invocation: true\n---\nBuild $ARGUMENTS\n")
	write(t, filepath.Join(root, ".gantry/commands/hello.md"), "# Say hello\nHello $1!\n")
	write(t, filepath.Join(root, ".claude/commands/hello.md"), "shadowed by gantry's\n")
	write(t, filepath.Join(user, "commands/mine.md"), "mine\n")
	write(t, filepath.Join(claude, "commands/review.md"), "---\ndescription: Review\nallowed-tools:\n  - Read\n  - Grep\n---\nReview it\n")
	write(t, filepath.Join(codex, "prompts/draftpr.md"), "---\ndescription: Draft a PR\nargument-hint: FILES= PR_TITLE=\n---\nPR $PR_TITLE for $FILES\n")
	write(t, filepath.Join(codex, "prompts/sub/ignored.md"), "Codex reads no subfolder\n")
	write(t, filepath.Join(root, ".claude/commands/notes.txt"), "not a command\n")

	cmds, shadowed, err := Find(Dirs{Project: root, ProjectOK: true, User: user, Claude: claude, Codex: codex})
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, c := range cmds {
		names = append(names, c.Name)
	}
	if want := []string{"build", "hello", "mine", "prompts:draftpr", "review"}; !reflect.DeepEqual(names, want) {
		t.Fatalf("names = %v, want %v", names, want)
	}
	if len(shadowed) != 1 || !strings.HasSuffix(shadowed[0], filepath.Join(".claude", "commands", "hello.md")) {
		t.Errorf("shadowed = %v", shadowed)
	}
	m := byName(cmds)
	b := m["build"]
	if b.Description != "Build the UI (project:frontend)" || b.ArgumentHint != "[target] [mode]" || b.Model != "claude-haiku-4-5" || !b.DisableModelInvocation {
		t.Errorf("build = %+v", b)
	}
	if !reflect.DeepEqual(b.AllowedTools, []string{"Bash(npm run:*)", "Read"}) {
		t.Errorf("build's allowed-tools = %q", b.AllowedTools)
	}
	if got := m["hello"].Description; got != "Say hello (project)" {
		t.Errorf("hello's description = %q (from its first line)", got)
	}
	if got := m["mine"].Description; got != "mine (user)" {
		t.Errorf("mine's description = %q", got)
	}
	if got := m["review"].AllowedTools; !reflect.DeepEqual(got, []string{"Read", "Grep"}) {
		t.Errorf("review's allowed-tools (a YAML list) = %q", got)
	}
	if d := m["prompts:draftpr"]; d.Description != "Draft a PR (codex)" || d.ArgumentHint != "FILES= PR_TITLE=" || d.Source != "codex" {
		t.Errorf("draftpr = %+v", d)
	}
}

// TestFindUntrustedProject leaves the project's commands out of a folder not trusted.
func TestFindUntrustedProject(t *testing.T) {
	root := t.TempDir()
	write(t, filepath.Join(root, ".claude/commands/evil.md"), "!`touch pwned`\n")
	cmds, _, err := Find(Dirs{Project: root, ProjectOK: false})
	if err != nil || len(cmds) != 0 {
		t.Fatalf("cmds = %v, err = %v; want none", cmds, err)
	}
}

func TestExpandArguments(t *testing.T) {
	c := Command{Name: "fix", Body: "Fix issue #$1 with priority $2 ($3): $ARGUMENTS costs $$5\n"}
	got, notes := Expand(context.Background(), c, `123 high "two words"`, nil)
	if want := `Fix issue #123 with priority high (two words): 123 high "two words" costs $5`; got != want || len(notes) != 0 {
		t.Errorf("got %q (%v), want %q", got, notes, want)
	}
}

// TestExpandAppendsArguments: a body without a placeholder gets the arguments after
// it, as Claude Code does.
func TestExpandAppendsArguments(t *testing.T) {
	got, _ := Expand(context.Background(), Command{Name: "x", Body: "Review $HOME.\n"}, "the parser", nil)
	if want := "Review $HOME.\n\nARGUMENTS: the parser"; got != want {
		t.Errorf("got %q, want %q", got, want)
	}
}

func TestExpandCodexNamed(t *testing.T) {
	c := Command{Name: "prompts:draftpr", Source: "codex", Body: "PR $PR_TITLE for $FILES and $MISSING"}
	got, notes := Expand(context.Background(), c, `FILES="a.go b.go" PR_TITLE=Fix`, nil)
	if want := "PR Fix for a.go b.go and"; got != want {
		t.Errorf("got %q, want %q", got, want)
	}
	if len(notes) != 1 || !strings.Contains(notes[0], "$MISSING") {
		t.Errorf("notes = %v", notes)
	}
}

func TestExpandShellLines(t *testing.T) {
	var ran []string
	sh := func(_ context.Context, line string) (string, error) {
		ran = append(ran, line)
		if line == "false" {
			return "", errors.New("the command was refused")
		}
		return "out of " + line + "\n", nil
	}
	c := Command{Name: "ctx", Body: "Status: !`git status` for $1\nFailing: !`false`\n"}
	got, notes := Expand(context.Background(), c, "main", sh)
	if want := "Status: out of git status for main\nFailing: (`false` did not run: the command was refused)"; got != want {
		t.Errorf("got %q, want %q", got, want)
	}
	if !reflect.DeepEqual(ran, []string{"git status", "false"}) || len(notes) != 1 {
		t.Errorf("ran %v, notes %v", ran, notes)
	}
}

func TestLookup(t *testing.T) {
	cmds := []Command{{Name: "hello"}, {Name: "prompts:draftpr"}}
	if c, args, ok := Lookup(cmds, " /hello  WORLD  "); !ok || c.Name != "hello" || args != "WORLD" {
		t.Errorf("Lookup = %v %q %v", c, args, ok)
	}
	if c, _, ok := Lookup(cmds, "/prompts:draftpr"); !ok || c.Name != "prompts:draftpr" {
		t.Errorf("codex lookup = %v %v", c, ok)
	}
	for _, p := range []string{"hello", "/nope x", "/hello/x"} {
		if _, _, ok := Lookup(cmds, p); ok {
			t.Errorf("Lookup(%q) found a command", p)
		}
	}
}

// In a Claude Code command, NAME=value is a positional argument (only Codex names them).
func TestExpandClaudeHasNoNamedArguments(t *testing.T) {
	got, _ := Expand(context.Background(), Command{Name: "deploy", Source: "claude", Body: "Deploy with $1 ($ENV)"}, "ENV=prod", nil)
	if want := "Deploy with ENV=prod ($ENV)"; got != want {
		t.Errorf("got %q, want %q", got, want)
	}
}

// TestFindPluginCommands names a plugin's commands plugin:command, from its folders
// and from a single file its manifest names, after the person's own.
func TestFindPluginCommands(t *testing.T) {
	plug := t.TempDir()
	write(t, filepath.Join(plug, "commands/hello.md"), "---\ndescription: Say hello\n---\nHello $ARGUMENTS\n")
	write(t, filepath.Join(plug, "extra/one.md"), "One\n")
	user := t.TempDir()
	write(t, filepath.Join(user, "commands/hello.md"), "mine\n")
	cmds, shadowed, err := Find(Dirs{User: user, Plugins: []Plugin{{Name: "demo", Scope: "user", Dirs: []string{filepath.Join(plug, "commands"), filepath.Join(plug, "extra/one.md")}}}})
	if err != nil || len(shadowed) != 0 {
		t.Fatalf("err %v, shadowed %v", err, shadowed)
	}
	m := byName(cmds)
	if c := m["demo:hello"]; c.Description != "Say hello (plugin demo)" || c.Source != "plugin" || c.Body != "Hello $ARGUMENTS\n" {
		t.Errorf("demo:hello = %+v", c)
	}
	if c := m["demo:one"]; c.Path != filepath.Join(plug, "extra/one.md") {
		t.Errorf("demo:one = %+v", c)
	}
	if m["hello"].Source != "gantry" || len(cmds) != 3 {
		t.Errorf("cmds %+v", cmds)
	}
	if c, args, ok := Lookup(cmds, "/demo:hello WORLD"); !ok || c.Name != "demo:hello" || args != "WORLD" {
		t.Errorf("Lookup = %v %q %v", c.Name, args, ok)
	}
}

// TestExpandShellBlock runs a ```! block (a script of one or more lines, as
// ralph-wiggum's command has) as one command, with the arguments put in first; a
// plain ``` block and a ```!-less fence are left as text.
func TestExpandShellBlock(t *testing.T) {
	var ran []string
	sh := func(_ context.Context, line string) (string, error) {
		ran = append(ran, line)
		return "set up: " + strings.ReplaceAll(line, "\n", "; ") + "\n", nil
	}
	c := Command{Name: "loop", Body: "Start:\n\n```!\n\"/p/setup.sh\" $ARGUMENTS\necho two\n```\n\nThen ```go\nx := 1\n```\nand\n```!\n```\nend\n"}
	got, notes := Expand(context.Background(), c, "fix the tests", sh)
	want := "Start:\n\nset up: \"/p/setup.sh\" fix the tests; echo two\n\nThen ```go\nx := 1\n```\nand\nset up: \nend"
	if got != want || len(notes) != 0 {
		t.Errorf("got %q, want %q (notes %v)", got, want, notes)
	}
	if !reflect.DeepEqual(ran, []string{"\"/p/setup.sh\" fix the tests\necho two", ""}) {
		t.Errorf("ran %q", ran)
	}
}

// TestPluginRootInCommands puts the plugin's folder in the place of
// ${CLAUDE_PLUGIN_ROOT} in a plugin command's body and allowed-tools, and nowhere
// else.
func TestPluginRootInCommands(t *testing.T) {
	plug, user := t.TempDir(), t.TempDir()
	write(t, filepath.Join(plug, "commands/loop.md"), "---\nallowed-tools: [\"Bash(${CLAUDE_PLUGIN_ROOT}/scripts/setup.sh:*)\"]\n---\n```!\n\"${CLAUDE_PLUGIN_ROOT}/scripts/setup.sh\" $ARGUMENTS\n```\n")
	write(t, filepath.Join(user, "commands/mine.md"), "Mine: ${CLAUDE_PLUGIN_ROOT}\n")
	cmds, _, err := Find(Dirs{User: user, Plugins: []Plugin{{Name: "ralph", Scope: "user", Root: plug, Dirs: []string{filepath.Join(plug, "commands")}}}})
	if err != nil {
		t.Fatal(err)
	}
	m := byName(cmds)
	loop := m["ralph:loop"]
	if want := []string{"Bash(" + plug + "/scripts/setup.sh:*)"}; !reflect.DeepEqual(loop.AllowedTools, want) {
		t.Errorf("allowed-tools %q, want %q", loop.AllowedTools, want)
	}
	if want := "```!\n\"" + plug + "/scripts/setup.sh\" $ARGUMENTS\n```\n"; loop.Body != want {
		t.Errorf("body %q, want %q", loop.Body, want)
	}
	if m["mine"].Body != "Mine: ${CLAUDE_PLUGIN_ROOT}\n" {
		t.Errorf("the user's own command changed: %q", m["mine"].Body)
	}
}

// TestInvalidYAMLKeepsLists reads a command whose argument-hint YAML refuses (two
// quoted parts, as real command collections write it) with a block scalar
// description and allowed-tools as a block list: the line reader keeps the list, the
// description's text and the hint as written.
func TestInvalidYAMLKeepsLists(t *testing.T) {
	root := t.TempDir()
	write(t, filepath.Join(root, ".claude/commands/tools/scan-repo.md"), `---
name: scan-repo
description: |
  Scan a repository for drift between its docs and its code.

  Usage: /scan-repo "<repo path>" ["area"]
argument-hint: "<repo path>" ["docs|code|all"]
user-invocable: true
related:
  commands: [tools/lint-repo]
allowed-tools:
  - Read
  - Bash(git:*)
  - Grep
model: [claude-haiku-4-5]
---
Scan $ARGUMENTS
`)
	write(t, filepath.Join(root, ".claude/commands/tools/flow.md"), "---\nargument-hint: [file] [focus]\nallowed-tools: [Read, \"Bash(go test:*)\"]\n---\nFlow\n")
	cmds, _, err := Find(Dirs{Project: root, ProjectOK: true})
	if err != nil {
		t.Fatal(err)
	}
	m := byName(cmds)
	c := m["scan-repo"]
	if want := []string{"Read", "Bash(git:*)", "Grep"}; !reflect.DeepEqual(c.AllowedTools, want) {
		t.Errorf("allowed-tools = %q, want %q", c.AllowedTools, want)
	}
	if want := `"<repo path>" ["docs|code|all"]`; c.ArgumentHint != want {
		t.Errorf("argument-hint = %q, want %q", c.ArgumentHint, want)
	}
	if want := `Scan a repository for drift between its docs and its code. Usage: /scan-repo "<repo path>" ["area"] (project:tools)`; c.Description != want {
		t.Errorf("description = %q, want %q", c.Description, want)
	}
	if want := []string{"Read", "Bash(go test:*)"}; !reflect.DeepEqual(m["flow"].AllowedTools, want) {
		t.Errorf("flow's allowed-tools (a flow list) = %q, want %q", m["flow"].AllowedTools, want)
	}
	if m["flow"].ArgumentHint != "[file] [focus]" {
		t.Errorf("flow's argument-hint = %q", m["flow"].ArgumentHint)
	}
}
