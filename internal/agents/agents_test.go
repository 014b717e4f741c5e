package agents

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

func write(t *testing.T, dir, name, body string) {
	t.Helper()
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, name), []byte(body), 0o644); err != nil {
		t.Fatal(err)
	}
}

// The shapes of anthropics/claude-code's plugins/*/agents: a comma-separated tools
// line, a model alias, a color.
const explorer = `---
name: code-explorer
description: Deeply analyzes existing codebase features by tracing execution paths
tools: Glob, Grep, LS, Read, WebFetch, TodoWrite
model: sonnet
color: yellow
---

You are an expert code analyst.
`

func TestLoadOrderAndNotices(t *testing.T) {
	root, user, claude := t.TempDir(), t.TempDir(), t.TempDir()
	write(t, filepath.Join(root, ".claude", "agents"), "code-explorer.md", explorer)
	write(t, filepath.Join(root, ".gantry", "agents"), "reviewer.md", "---\nname: reviewer\ndescription: Reviews a change\ntools: [read_file, Grep]\npermissionMode: plan\nmaxTurns: 3\nmemory: project\n---\nReview it.\n")
	write(t, filepath.Join(user, "agents"), "reviewer.md", "---\nname: reviewer\ndescription: the user's\n---\nx\n")
	write(t, filepath.Join(claude, "agents"), "bad.md", "---\n: : :\nname oops\n---\nbody\n")
	write(t, filepath.Join(claude, "agents"), "nodesc.md", "---\nname: nodesc\n---\nbody\n")
	write(t, filepath.Join(claude, "agents"), "plain.md", "just text\n")
	write(t, filepath.Join(claude, "agents"), "notes.txt", "not a definition\n")

	defs, notices := Load(Dirs(root, user, claude, true))
	var names []string
	for _, d := range defs {
		names = append(names, d.Name+"@"+d.Source)
	}
	want := []string{"code-explorer@project .claude/agents", "reviewer@project .gantry/agents"}
	if !slices.Equal(names, want) {
		t.Fatalf("defs %v, want %v", names, want)
	}
	ex := defs[0]
	if !slices.Equal(ex.Tools, []string{"Glob", "Grep", "LS", "Read", "WebFetch", "TodoWrite"}) || ex.Model != "sonnet" || ex.Prompt != "You are an expert code analyst." {
		t.Errorf("code-explorer read as %+v", ex)
	}
	if !slices.Equal(defs[1].Tools, []string{"read_file", "Grep"}) || defs[1].PermissionMode != "plan" || defs[1].MaxTurns != 3 {
		t.Errorf("reviewer read as %+v", defs[1])
	}
	for _, part := range []string{
		"bad.md is not used: its front matter is not valid YAML",
		"nodesc.md is not used: it has no description",
		"plain.md is not used: it has no front matter",
		"reviewer.md: gantry ignores its keys memory",
		filepath.Join(user, "agents", "reviewer.md") + " is not used: " + filepath.Join(root, ".gantry", "agents", "reviewer.md") + ` defines "reviewer" first`,
	} {
		if !slices.ContainsFunc(notices, func(n string) bool { return strings.Contains(n, part) }) {
			t.Errorf("no notice %q in %q", part, notices)
		}
	}
	if len(notices) != 5 {
		t.Errorf("%d notices, want 5: %q", len(notices), notices)
	}

	// An untrusted folder's definitions are not read.
	defs, _ = Load(Dirs(root, user, claude, false))
	if len(defs) != 1 || defs[0].Name != "reviewer" || defs[0].Description != "the user's" {
		t.Errorf("without the project: %+v", defs)
	}
}

// Most of the claude-code repository's agents have a description holding ": " and
// examples on the following lines, which is not YAML; Claude Code reads them, and so
// does gantry.
func TestLenientFrontMatter(t *testing.T) {
	dir := t.TempDir()
	write(t, dir, "analyzer.md", `---
name: transcript-analyzer
description: Use this agent when reading a transcript. Examples: <example>Context: the user asks\nuser: "/look"\nassistant: "I'll look"</example>
Context: a continuation line that looks like a key
model: inherit
color: green
tools: ["Read", "Grep"]
---

Analyze the transcript.
`)
	write(t, dir, "garbage.md", "---\nthis: is: not: yaml\n---\nbody\n")
	defs, notices := Load([]Dir{{Path: dir, Source: "test"}})
	if len(defs) != 1 {
		t.Fatalf("defs %+v, notices %q", defs, notices)
	}
	d := defs[0]
	if d.Name != "transcript-analyzer" || d.Model != "inherit" || !slices.Equal(d.Tools, []string{"Read", "Grep"}) || d.Prompt != "Analyze the transcript." {
		t.Errorf("read as %+v", d)
	}
	if !strings.HasPrefix(d.Description, "Use this agent when reading a transcript. Examples: <example>Context: the user asks user: ") ||
		!strings.HasSuffix(d.Description, "Context: a continuation line that looks like a key") {
		t.Errorf("description %q", d.Description)
	}
	if len(notices) != 1 || !strings.Contains(notices[0], "garbage.md is not used: its front matter is not valid YAML") {
		t.Errorf("notices %q", notices)
	}
}

// An agent whose front matter is not YAML keeps tools written as a block list of
// "- Name" lines (the description holds ": ", as most real agents' do).
func TestLenientFrontMatterBlockList(t *testing.T) {
	dir := t.TempDir()
	write(t, dir, "auditor.md", `---
name: auditor
description: Audits a change. Use when: the user asks for an audit: of docs or code.
tools:
  - Read
  - "Bash(git diff:*)"
  - Grep
disallowedTools: [Write, Edit]
---
Audit it.
`)
	defs, notices := Load([]Dir{{Path: dir, Source: "test"}})
	if len(defs) != 1 || len(notices) != 0 {
		t.Fatalf("defs %+v, notices %q", defs, notices)
	}
	d := defs[0]
	if want := []string{"Read", "Bash(git diff:*)", "Grep"}; !slices.Equal(d.Tools, want) {
		t.Errorf("tools %q, want %q", d.Tools, want)
	}
	if want := []string{"Write", "Edit"}; !slices.Equal(d.Disallowed, want) {
		t.Errorf("disallowedTools %q, want %q", d.Disallowed, want)
	}
	if want := "Audits a change. Use when: the user asks for an audit: of docs or code."; d.Description != want {
		t.Errorf("description %q, want %q", d.Description, want)
	}
}

// A plugin's agents are named plugin:name, beside a person's agent of the same name.
func TestPluginAgentsAreNamespaced(t *testing.T) {
	mine, plug := t.TempDir(), t.TempDir()
	write(t, mine, "helper.md", "---\nname: helper\ndescription: Mine\n---\nMine.\n")
	write(t, plug, "helper.md", "---\nname: helper\ndescription: The plugin's\n---\nTheirs.\n")
	defs, notices := Load([]Dir{{Path: mine, Source: "user"}, {Path: plug, Source: "plugin demo", Plugin: "demo"}})
	if len(defs) != 2 || defs[0].Name != "demo:helper" || defs[0].Source != "plugin demo" || defs[1].Name != "helper" || len(notices) != 0 {
		t.Errorf("defs %+v, notices %q", defs, notices)
	}
}

// maxTurns and permissionMode are read, in YAML and in the lenient reading of Claude
// Code's loose front matter; a value gantry cannot use is named in a notice and the
// definition still runs, under the session's limit and its caller's mode.
func TestMaxTurnsAndPermissionMode(t *testing.T) {
	dir := t.TempDir()
	write(t, dir, "strict.md", "---\nname: strict\ndescription: Checks: carefully\nmaxTurns: 4\npermissionMode: dontAsk\n---\nCheck.\n")
	write(t, dir, "bad.md", "---\nname: bad\ndescription: Bad values\nmaxTurns: many\npermissionMode: godMode\n---\nx\n")
	defs, notices := Load([]Dir{{Path: dir, Source: "test"}})
	if len(defs) != 2 {
		t.Fatalf("defs %+v, notices %q", defs, notices)
	}
	bad, strict := defs[0], defs[1]
	if strict.MaxTurns != 4 || strict.PermissionMode != "dontAsk" {
		t.Errorf("strict read as %+v", strict)
	}
	if bad.MaxTurns != 0 || bad.PermissionMode != "" {
		t.Errorf("bad read as %+v", bad)
	}
	want := "The agent definition " + filepath.Join(dir, "bad.md") + ": its maxTurns many is not a whole number above 0, so the session's limit applies; its permissionMode godMode is not one of default, acceptEdits, plan, bypassPermissions, dontAsk, accept-edits, yolo, so it runs in its caller's mode."
	if !slices.Equal(notices, []string{want}) {
		t.Errorf("notices\n got %q\nwant %q", notices, want)
	}
}
