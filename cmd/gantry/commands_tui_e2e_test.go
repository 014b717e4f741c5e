package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gantry-dev/gantry/internal/llm/fakellm"
)

// A custom command in the terminal: typing its start offers it with its description
// and argument hint, and "/hello WORLD" reaches the model as the command's body.
func TestTUICustomCommandCompletedAndRun(t *testing.T) {
	srv := fakellm.New(say("Hello back."))
	defer srv.Close()
	dir := tuiProjectDir(t)
	file := filepath.Join(dir, ".claude", "commands", "hello.md")
	if err := os.MkdirAll(filepath.Dir(file), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(file, []byte("---\ndescription: Greet someone\nargument-hint: [name]\n---\nSay hello to $1, warmly.\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	tt := startTUI(t, 100, 30, dir, tuiEnv(t, srv, "CODEX_HOME="+t.TempDir()))
	tt.waitFor("Ask gantry, or /help")
	tt.tmux("send-keys", "-t", "g", "-l", "/hell")
	s := tt.waitFor("Greet someone (project)")
	if !strings.Contains(s, "[name]") {
		t.Errorf("the completion lacks the argument hint:\n%s", tuiFrame(s))
	}
	tt.tmux("send-keys", "-t", "g", "-l", "o WORLD")
	tt.keys("Enter")
	tt.waitFor("Hello back.")
	if got := modelSaw(t, srv); !strings.Contains(got, "Say hello to WORLD, warmly.") {
		t.Errorf("the model saw %s", got)
	}
}
