package main

// End-to-end tests of skills in Anthropic's format (issue 14, point 4): a skill in
// .claude/skills, named by its front matter, whose allowed-tools let its commands run
// without asking in default mode while a deny rule still refuses, whose folder the
// model is told, and whose problems the person is told.

import (
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gantry-dev/gantry/internal/llm/fakellm"
)

// toolResults are the tool results the model was sent in request i, by call id.
func toolResults(t *testing.T, srv *fakellm.Server, i int) map[string]string {
	t.Helper()
	reqs := srv.Requests()
	if len(reqs) <= i {
		t.Fatalf("%d requests, wanted request %d", len(reqs), i)
	}
	out := map[string]string{}
	msgs, _ := reqs[i].Body["messages"].([]any)
	for _, m := range msgs {
		blocks, _ := m.(map[string]any)["content"].([]any)
		for _, b := range blocks {
			blk, _ := b.(map[string]any)
			if blk["type"] != "tool_result" {
				continue
			}
			var text strings.Builder
			switch c := blk["content"].(type) {
			case string:
				text.WriteString(c)
			case []any:
				for _, part := range c {
					if p, _ := part.(map[string]any); p["type"] == "text" {
						text.WriteString(fmt.Sprint(p["text"]))
					}
				}
			}
			out[fmt.Sprint(blk["tool_use_id"])] = text.String()
		}
	}
	return out
}

func TestSkillAllowedToolsEndToEnd(t *testing.T) {
	dir := t.TempDir()
	home := t.TempDir() // no ~/.claude/skills of the machine's user in the catalogue
	writeFiles(t, dir, map[string]string{
		".git/HEAD": "ref: refs/heads/main\n",
		".claude/skills/tidy-folder/SKILL.md": `---
name: tidy
description: |-
  Tidies the working folder. Use when the user asks to tidy, clean up or
  prepare the folder, or mentions stray files.
allowed-tools: Bash(echo tidy:*), Read
---
# Tidy

Say "tidy" with echo, then read CHECKLIST.md beside this file.
`,
		".claude/skills/tidy-folder/CHECKLIST.md": "1. Nothing stray.\n",
	})
	srv, e := fakeModel(t,
		call("b0", "bash", `{"command":"echo tidy before"}`),
		call("s1", "read_skill", `{"name":"tidy"}`),
		call("b1", "bash", `{"command":"echo tidy after"}`),
		call("b2", "bash", `{"command":"echo tidy --secret"}`),
		call("r1", "read_file", `{"path":`+fmt.Sprintf("%q", filepath.Join(dir, ".claude/skills/tidy-folder/CHECKLIST.md"))+`}`),
		say("tidied"))
	e = append(e, "HOME="+home)
	r := gantry(t, dir, e, "--permission-mode", "default", "--deny", "bash:echo tidy --secret.*", "-p", "tidy the folder", "--refuse-questions")
	if r.code != 0 {
		t.Fatalf("exit %d: %s", r.code, r.stderr)
	}
	if !strings.Contains(requestText(t, srv, 0), ` tidy — Tidies the working folder. Use when the user asks to tidy, clean up or prepare the folder, or mentions stray files.`) {
		t.Errorf("the catalogue lacks the skill by its front-matter name: %s", requestText(t, srv, 0))
	}
	results := toolResults(t, srv, 5)
	if strings.Contains(results["b0"], "tidy before\n") || !strings.Contains(results["b0"], "needs permission") {
		t.Errorf("before the skill is in use, bash ran without asking: %q", results["b0"])
	}
	base := "Base directory for this skill: " + filepath.Join(dir, ".claude/skills/tidy-folder") + "\n"
	if !strings.HasPrefix(results["s1"], base+"The skill tidy is in use: ") {
		t.Errorf("read_skill gave %q", results["s1"])
	}
	if strings.TrimSpace(results["b1"]) != "tidy after" {
		t.Errorf("the skill's command did not run without asking: %q", results["b1"])
	}
	if strings.Contains(results["b2"], "tidy --secret\n") || !strings.Contains(results["b2"], "deny rule") {
		t.Errorf("the deny rule did not hold: %q", results["b2"])
	}
	if strings.TrimSpace(results["r1"]) != "1. Nothing stray." {
		t.Errorf("the file beside SKILL.md: %q", results["r1"])
	}
	if !strings.Contains(r.stdout, "✓ The skill tidy is in use: until the session ends, these run without asking (deny rules still apply): bash:echo tidy( .*)?, read_file.\n") {
		t.Errorf("the person was not told: %s", r.stdout)
	}
}

// What a skill gets wrong is said to the person at the start, one line each, and the
// session goes on.
func TestSkillNoticesEndToEnd(t *testing.T) {
	dir := t.TempDir()
	home := t.TempDir()
	writeFiles(t, dir, map[string]string{
		".git/HEAD":                      "ref: refs/heads/main\n",
		".gantry/skills/pdf/SKILL.md":    "---\nname: pdf\ndescription: Gantry's PDF notes.\n---\n",
		".claude/skills/pdf/SKILL.md":    "---\nname: pdf\ndescription: Claude's PDF skill.\n---\n",
		".claude/skills/broken/SKILL.md": "---\nname: [broken\n---\nStill listed.\n",
	})
	srv, e := fakeModel(t, say("ok"))
	e = append(e, "HOME="+home)
	r := gantry(t, dir, e, "-p", "hello")
	if r.code != 0 {
		t.Fatalf("exit %d: %s", r.code, r.stderr)
	}
	for _, want := range []string{
		`Two skills are named "pdf": ` + filepath.Join(dir, ".gantry/skills/pdf/SKILL.md") + ` is used and ` + filepath.Join(dir, ".claude/skills/pdf/SKILL.md") + ` is left out`,
		`The skill broken (` + filepath.Join(dir, ".claude/skills/broken/SKILL.md") + `): its front matter is not valid YAML (line 2: `,
	} {
		if !strings.Contains(r.stdout, "⚠ "+want) {
			t.Errorf("the output lacks %q:\n%s", want, r.stdout)
		}
	}
	req := requestText(t, srv, 0)
	if !strings.Contains(req, " pdf — Gantry's PDF notes.") || !strings.Contains(req, " broken — Still listed.") {
		t.Errorf("the catalogue: %s", req)
	}
}
