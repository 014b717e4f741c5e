package evaltool

import (
	"strings"
	"testing"
	"time"

	"github.com/gantry-dev/gantry/internal/config"
	"github.com/gantry-dev/gantry/internal/config/configtest"
)

// The eval section, declared in this package, is checked by config's loader with
// the file's line and the key, and merged into the tool's options; a project's
// interpreters wait for its trust.
func TestSection(t *testing.T) {
	e := configtest.New(t)
	for yaml, want := range map[string]string{
		"\neval:\n  idleTimeout: -1\n": `:3: key "eval.idleTimeout" must be between 0 (the default, 300) and 86400 (seconds), not -1`,
		"eval:\n  pyhton: python3\n":   `:2: unknown key "eval.pyhton"; did you mean "python"?`,
	} {
		path := e.ProjectFile(t, yaml)
		if _, err := config.Load(e.Root); err == nil || err.Error() != path+want {
			t.Errorf("%q:\n got %v\nwant %s%s", yaml, err, path, want)
		}
	}
	e.UserFile(t, "eval:\n  python: /opt/python\n  idleTimeout: 60\n")
	e.ProjectFile(t, "eval:\n  node: /evil/node\n  idleTimeout: 30\n")
	c, err := config.Load(e.Root)
	if err != nil {
		t.Fatal(err)
	}
	if o := Section.Of(c).Options(); o.Python != "/opt/python" || o.Node != "/evil/node" || o.Idle != 30*time.Second {
		t.Errorf("options %+v", o)
	}
	if c, err = config.LoadHeld(e.Root); err != nil {
		t.Fatal(err)
	}
	if got := strings.Join(c.Held().Programs, "|"); got != "eval.node: /evil/node" {
		t.Errorf("held %q", got)
	}
	if s := Section.Of(c); s.Node != "" || s.Python != "/opt/python" || s.IdleTimeout != 30 {
		t.Errorf("held back: %+v", s)
	}
}
