package config

import (
	"testing"

	"github.com/gantry-dev/gantry/internal/config/configtest"
)

// env is a sandbox of config files (configtest's: a home folder, a user
// configuration folder and a git project), under the short names config's own tests
// use.
type env struct {
	home, user, root string
	sandbox          configtest.Env
}

func newEnv(t *testing.T) env {
	t.Helper()
	s := configtest.New(t)
	return env{home: s.Home, user: s.User, root: s.Root, sandbox: s}
}

func write(t *testing.T, path, content string) { configtest.Write(t, path, content) }

func writeB(t testing.TB, path, content string) { configtest.Write(t, path, content) }

func (e env) userFile(t *testing.T, content string) string { return e.sandbox.UserFile(t, content) }

func (e env) projectFile(t *testing.T, content string) string {
	return e.sandbox.ProjectFile(t, content)
}
