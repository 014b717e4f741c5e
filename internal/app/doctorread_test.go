package app

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// gantry doctor lists what it read from Claude Code's and Codex's folders (user and
// project): commands, agents, skills, memory files and a rule with paths, an output
// style, hooks, permission rules and MCP servers, each with its file; and what it
// ignored with why (an agent and a skill shadowed by one found first, a hook of an
// event gantry has not). Nothing is started: the MCP server's program does not exist.
func TestDoctorListsEachEcosystem(t *testing.T) {
	claude, codex := commandHomes(t)
	write := func(path, body string) {
		t.Helper()
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	dir := project(t, "", map[string]string{
		".claude/commands/hello.md":      "---\ndescription: Say hello\n---\nHello $ARGUMENTS\n",
		".claude/agents/reviewer.md":     "---\nname: reviewer\ndescription: Reviews code\ntools: Read, Grep\n---\nReview.\n",
		".claude/rules/go.md":            "---\npaths:\n  - \"**/*.go\"\n---\nUse gofmt.\n",
		".claude/output-styles/terse.md": "---\nname: Terse\ndescription: Short answers\n---\nBe brief.\n",
		".claude/settings.json":          `{"hooks": {"PreToolUse": [{"matcher": "Bash", "hooks": [{"type": "command", "command": "true"}]}], "NoSuchEvent": [{"hooks": [{"type": "command", "command": "true"}]}]}, "permissions": {"allow": ["Bash(git status:*)"], "deny": ["Read(./secret)"]}}`,
		"CLAUDE.md":                      "Project memory.\n",
		".claude/skills/pdf/SKILL.md":    "---\nname: pdf\ndescription: The project's PDF skill\n---\nUse qpdf.\n",
		".codex/config.toml":             "[mcp_servers.proj]\ncommand = \"/nonexistent/proj-server\"\n\n[mcp_servers.off]\ncommand = \"false\"\nenabled = false\n",
		"opencode.jsonc":                 "{\n  // opencode's\n  \"mcp\": {\"oc\": {\"type\": \"local\", \"command\": [\"/nonexistent/oc\"],},},\n}\n",
		".crush.json":                    `{"mcp": {"cr": {"type": "stdio", "command": "/nonexistent/cr", "disabled": true}}}`,
	})
	write(filepath.Join(claude, "CLAUDE.md"), "Claude user memory.\n")
	write(filepath.Join(claude, "agents", "reviewer.md"), "---\nname: reviewer\ndescription: The user's reviewer\n---\nReview too.\n")
	write(filepath.Join(claude, "skills", "pdf", "SKILL.md"), "---\nname: pdf\ndescription: Reads PDF files\n---\nUse pdftotext.\n")
	write(filepath.Join(codex, "AGENTS.md"), "Codex user memory.\n")
	write(filepath.Join(codex, "prompts", "plan.md"), "Plan $1\n")
	write(filepath.Join(codex, "config.toml"), "[mcp_servers.docs]\ncommand = \"/nonexistent/docs-server\"\n")

	doctor := func() string {
		t.Helper()
		rows, err := Doctor(dir)
		if err != nil {
			t.Fatal(err)
		}
		var b strings.Builder
		for _, r := range rows {
			b.WriteString(r.Name + " " + r.Value + "\n")
		}
		return b.String()
	}
	got := doctor()
	settings := filepath.Join(dir, ".claude", "settings.json")
	for _, want := range []string{
		"/hello: " + filepath.Join(dir, ".claude", "commands", "hello.md"),
		"/prompts:plan: " + filepath.Join(codex, "prompts", "plan.md"),
		"agents 1 agent definition(s)",
		"reviewer: " + filepath.Join(dir, ".claude", "agents", "reviewer.md"),
		"ignored: The agent definition " + filepath.Join(claude, "agents", "reviewer.md") + " is not used",
		"pdf: " + filepath.Join(dir, ".claude", "skills", "pdf", "SKILL.md"),
		"ignored: Two skills are named \"pdf\"",
		filepath.Join(claude, "CLAUDE.md"),
		filepath.Join(codex, "AGENTS.md"),
		filepath.Join(dir, "CLAUDE.md"),
		filepath.Join(dir, ".claude", "rules", "go.md") + " (paths: **/*.go)",
		"Terse: " + filepath.Join(dir, ".claude", "output-styles", "terse.md"),
		"hooks 1 hook(s)",
		settings + ": 1 hook(s)",
		"the NoSuchEvent hooks were skipped: gantry has no such event",
		settings + ": 1 allow / 1 deny",
		"docs (stdio) from " + filepath.Join(codex, "config.toml"),
		"proj (stdio) from " + filepath.Join(dir, ".codex", "config.toml"),
		"not used: off (" + filepath.Join(dir, ".codex", "config.toml") + "): turned off there (enabled = false)",
		"oc (stdio) from " + filepath.Join(dir, "opencode.jsonc") + ":3",
		"not used: cr (" + filepath.Join(dir, ".crush.json") + ":1): turned off there",
	} {
		if !strings.Contains(got, want) {
			t.Errorf("doctor lacks %q:\n%s", want, got)
		}
	}

	// In a folder not trusted (a user config without trustedFolders), the project's
	// agents are left out and the hooks, rules and servers said to wait for the trust.
	t.Setenv("GANTRY_CONFIG_DIR", t.TempDir())
	got = doctor()
	for _, want := range []string{
		"ignored: the project's agents (the folder is not trusted)",
		"reviewer: " + filepath.Join(claude, "agents", "reviewer.md"),
		"run only once the folder is trusted",
	} {
		if !strings.Contains(got, want) {
			t.Errorf("doctor in a folder not trusted lacks %q:\n%s", want, got)
		}
	}
}
