// Package configtest gives the tests of a tool family that registers a config
// section (config.RegisterSection) a sandbox of config files: a home folder, a user
// configuration folder and a git project, with the variables config reads pointed at
// them for the test.
package configtest

import (
	"os"
	"path/filepath"
	"testing"
)

// Env is the sandbox. It sets variables with t.Setenv: a test that uses it cannot
// be parallel.
type Env struct {
	Home, User, Root string
}

// New makes the sandbox, removed with the test's temporary folder.
func New(t testing.TB) Env {
	t.Helper()
	base := t.TempDir()
	e := Env{Home: filepath.Join(base, "home"), User: filepath.Join(base, "home", "cfg"), Root: filepath.Join(base, "proj")}
	t.Setenv("HOME", e.Home)
	t.Setenv("GANTRY_CONFIG_DIR", e.User)
	t.Setenv("XDG_CONFIG_HOME", "")
	t.Setenv("CLAUDE_CONFIG_DIR", "") // Claude Code's ~/.claude.json is the sandbox's
	t.Setenv("CODEX_HOME", "")        // Codex's ~/.codex too
	Write(t, filepath.Join(e.Root, ".git", "HEAD"), "ref: refs/heads/main\n")
	if err := os.MkdirAll(e.User, 0o700); err != nil {
		t.Fatal(err)
	}
	return e
}

// UserFile writes the user's config.yaml and returns its path.
func (e Env) UserFile(t testing.TB, content string) string {
	t.Helper()
	p := filepath.Join(e.User, "config.yaml")
	Write(t, p, content)
	return p
}

// ProjectFile writes the project's .gantry/config.yaml and returns its path.
func (e Env) ProjectFile(t testing.TB, content string) string {
	t.Helper()
	p := filepath.Join(e.Root, ".gantry", "config.yaml")
	Write(t, p, content)
	return p
}

// Write writes a file, making its folder.
func Write(t testing.TB, path, content string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}
