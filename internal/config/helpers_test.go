package config

import (
	"os"
	"path/filepath"
	"testing"
)

// env is a sandbox: a home folder, a user configuration folder and a git project.
type env struct {
	home, user, root string
}

func newEnv(t *testing.T) env {
	t.Helper()
	base := t.TempDir()
	e := env{
		home: filepath.Join(base, "home"),
		user: filepath.Join(base, "home", "cfg"),
		root: filepath.Join(base, "proj"),
	}
	t.Setenv("HOME", e.home)
	t.Setenv("GANTRY_CONFIG_DIR", e.user)
	t.Setenv("XDG_CONFIG_HOME", "")
	t.Setenv("CLAUDE_CONFIG_DIR", "") // Claude Code's ~/.claude.json is the sandbox's
	t.Setenv("CODEX_HOME", "")        // Codex's ~/.codex too
	write(t, filepath.Join(e.root, ".git", "HEAD"), "ref: refs/heads/main\n")
	if err := os.MkdirAll(e.user, 0o700); err != nil {
		t.Fatal(err)
	}
	return e
}

func write(t *testing.T, path, content string) { writeB(t, path, content) }

func writeB(t testing.TB, path, content string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}

func (e env) userFile(t *testing.T, content string) string {
	p := filepath.Join(e.user, "config.yaml")
	write(t, p, content)
	return p
}

func (e env) projectFile(t *testing.T, content string) string {
	p := filepath.Join(e.root, ".gantry", "config.yaml")
	write(t, p, content)
	return p
}
