package main

import (
	"strings"
	"testing"
)

// Custom slash commands through the binary in print mode: a Claude Code project
// command in a namespace folder, with its arguments, its !`line` run under its
// allowed-tools, its @file and its model; then a Codex prompt with named arguments.
func TestCustomCommandsEndToEnd(t *testing.T) {
	dir := t.TempDir()
	codex := t.TempDir()
	writeFiles(t, dir, map[string]string{
		".git/HEAD": "ref: refs/heads/main\n",
		"notes.txt": "NOTES-CONTENT\n",
		".claude/commands/frontend/build.md": "---\ndescription: Build the UI\nargument-hint: [what] [how]\nallowed-tools: Bash(echo:*)\nmodel: claude-haiku-4-5\n---\n" +
			"Build $1 the $2 way.\nShell says: !`echo SHELL-OUT`\nRead @notes.txt\n",
	})
	writeFiles(t, codex, map[string]string{"prompts/draftpr.md": "---\ndescription: Draft a PR\n---\nOpen a PR titled $TITLE.\n"})
	srv, e := fakeModel(t, say("Built."), say("Drafted."))
	e = append(e, "CODEX_HOME="+codex)
	r := gantry(t, dir, e, "-p", "/build UI fast", "--trust")
	if r.code != 0 {
		t.Fatalf("exit %d: %s", r.code, r.stderr)
	}
	first := requestText(t, srv, 0)
	for _, want := range []string{"Build UI the fast way.", "Shell says: SHELL-OUT", "NOTES-CONTENT", `"model":"claude-haiku-4-5"`} {
		if !strings.Contains(first, want) {
			t.Errorf("the request lacks %q: %s", want, first)
		}
	}
	if strings.Contains(first, "/build UI fast") {
		t.Errorf("the model got the command as typed: %s", first)
	}
	if !strings.Contains(r.stdout+r.stderr, "The command /build allows for this turn") {
		t.Errorf("the grant was not shown:\n%s%s", r.stdout, r.stderr)
	}
	r = gantry(t, dir, e, "-p", "/prompts:draftpr TITLE=Fix", "--trust")
	if r.code != 0 {
		t.Fatalf("exit %d: %s", r.code, r.stderr)
	}
	if s := requestText(t, srv, 1); !strings.Contains(s, "Open a PR titled Fix.") {
		t.Errorf("the Codex prompt was not expanded: %s", s)
	}
}
