package acp

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	sdk "github.com/coder/acp-go-sdk"

	"github.com/gantry-dev/gantry/internal/llm"
	"github.com/gantry-dev/gantry/internal/llm/scripted"
)

// A project's custom command (Claude Code's folder) is offered with its description
// and argument hint, and "/hello WORLD" reaches the model as the command's body.
func TestCustomCommandsOfferedAndRun(t *testing.T) {
	t.Setenv("CLAUDE_CONFIG_DIR", t.TempDir())
	t.Setenv("CODEX_HOME", t.TempDir())
	m := scripted.New()
	h := start(t, m, sdk.ClientCapabilities{})
	file := filepath.Join(h.dir, ".claude", "commands", "hello.md")
	if err := os.MkdirAll(filepath.Dir(file), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(file, []byte("---\ndescription: Greet someone\nargument-hint: [name]\n---\nSay hello to $1, warmly.\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	id := h.newSession()
	h.client.waitFor(t, "available_commands_update", func(u sdk.SessionUpdate) bool { return u.AvailableCommandsUpdate != nil })
	var hello *sdk.AvailableCommand
	for _, u := range h.client.snapshot() {
		if u.AvailableCommandsUpdate != nil {
			for _, c := range u.AvailableCommandsUpdate.AvailableCommands {
				if c.Name == "hello" {
					hello = &c
				}
			}
		}
	}
	if hello == nil || hello.Description != "Greet someone (project)" || hello.Input == nil || hello.Input.Unstructured == nil || hello.Input.Unstructured.Hint != "[name]" {
		t.Fatalf("hello offered as %+v", hello)
	}
	if r := h.prompt(id, "/hello WORLD"); r.StopReason != sdk.StopReasonEndTurn {
		t.Fatalf("stop %s", r.StopReason)
	}
	reqs := m.Requests()
	if len(reqs) == 0 {
		t.Fatal("the command did not reach the model")
	}
	msgs := reqs[len(reqs)-1].Messages
	var got string
	for _, msg := range msgs {
		if msg.Role == llm.RoleUser {
			got = msg.Text()
		}
	}
	if !strings.Contains(got, "Say hello to WORLD, warmly.") || strings.Contains(got, "/hello") {
		t.Errorf("the model got %q", got)
	}
}

// A command file written during the session is offered after the next turn; a turn
// that changes nothing sends no new list.
func TestCustomCommandOfferedAfterTheTurn(t *testing.T) {
	t.Setenv("CLAUDE_CONFIG_DIR", t.TempDir())
	t.Setenv("CODEX_HOME", t.TempDir())
	h := start(t, scripted.New(), sdk.ClientCapabilities{})
	id := h.newSession()
	h.client.waitFor(t, "available_commands_update", func(u sdk.SessionUpdate) bool { return u.AvailableCommandsUpdate != nil })
	updates := func() (n int, hasLater bool) {
		for _, u := range h.client.snapshot() {
			if u.AvailableCommandsUpdate != nil {
				n++
				for _, c := range u.AvailableCommandsUpdate.AvailableCommands {
					hasLater = hasLater || c.Name == "later"
				}
			}
		}
		return n, hasLater
	}
	h.prompt(id, "nothing changes")
	if n, _ := updates(); n != 1 {
		t.Errorf("%d lists sent after a turn that changed nothing", n)
	}
	file := filepath.Join(h.dir, ".gantry", "commands", "later.md")
	if err := os.MkdirAll(filepath.Dir(file), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(file, []byte("Written later.\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	h.prompt(id, "a turn")
	if n, later := updates(); n != 2 || !later {
		t.Errorf("%d lists sent, the new command offered: %v", n, later)
	}
}
