package debugtool

import (
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/gantry-dev/gantry/internal/config"
	"github.com/gantry-dev/gantry/internal/config/configtest"
	"github.com/gantry-dev/gantry/internal/dap"
)

// The debug section, declared in this package, is checked by config's loader with
// the file's line and the key; an unknown key of a row gets a suggestion.
func TestSectionErrors(t *testing.T) {
	e := configtest.New(t)
	for _, c := range []struct{ yaml, want string }{
		{"debug:\n  wait: 601\n", `:2: key "debug.wait" must be between 0 (the default, 30) and 600 (seconds), not 601`},
		{"debug:\n  adapters:\n    node:\n      extensions: [.js]\n",
			`:3: key "debug.adapters.node.command" is needed: a new adapter (not one of delve, debugpy, lldb, dart) has no command of its own`},
		{"debug:\n  adapters:\n    delve:\n      extensions: [go]\n",
			`:4: key "debug.adapters.delve.extensions[0]" must be a file extension with its dot, such as ".go", not "go"`},
		{"debug:\n  adapters:\n    delve:\n      command: [\" \"]\n", `:4: key "debug.adapters.delve.command" must start with the adapter's program`},
		{"debug:\n  adapters:\n    delve:\n      extension: [.go]\n", `:4: unknown key "debug.adapters.delve.extension"; did you mean "extensions"?`},
		{"debug:\n  adapters:\n    delve:\n      command: dlv\n", `:4: key "debug.adapters.delve.command" must be a list of strings`},
	} {
		path := e.ProjectFile(t, c.yaml)
		_, err := config.Load(e.Root)
		if err == nil || err.Error() != path+c.want {
			t.Errorf("%q:\n got %v\nwant %s%s", c.yaml, err, path, c.want)
		}
	}
}

// The user's file and the project's merge into the tool's options; a project's
// adapters and interpreter wait for its trust.
func TestSectionMerge(t *testing.T) {
	e := configtest.New(t)
	e.UserFile(t, "debug:\n  python: /opt/py/bin/python\n  wait: 5\n  adapters:\n    delve:\n      command: [/opt/dlv, dap]\n")
	e.ProjectFile(t, "debug:\n  wait: 9\n  adapters:\n    node:\n      command: [js-debug-adapter]\n      extensions: [.js]\n      markers: [package.json]\n")
	c, err := config.Load(e.Root)
	if err != nil {
		t.Fatal(err)
	}
	o := Section.Of(c).Options()
	if o.Python != "/opt/py/bin/python" || o.Wait != 9*time.Second {
		t.Errorf("options %+v", o)
	}
	i := slices.IndexFunc(o.Specs, func(s dap.Spec) bool { return s.ID == "delve" })
	j := slices.IndexFunc(o.Specs, func(s dap.Spec) bool { return s.ID == "node" })
	if i < 0 || j < 0 || o.Specs[i].Commands[0][0] != "/opt/dlv" || !o.Specs[i].Direct ||
		o.Specs[j].Extensions[0] != ".js" || o.Specs[j].Markers[0] != "package.json" {
		t.Errorf("specs %+v", o.Specs)
	}
	e.ProjectFile(t, "debug:\n  python: /evil/python\n  wait: 9\n  adapters:\n    node:\n      command: [evil-adapter, dap]\n")
	if c, err = config.LoadHeld(e.Root); err != nil {
		t.Fatal(err)
	}
	if got := strings.Join(c.Held().Programs, "|"); got != "debug.adapters.node: evil-adapter dap|debug.python: /evil/python" {
		t.Errorf("held %q", got)
	}
	if s := Section.Of(c); s.Python != "/opt/py/bin/python" || len(s.Adapters) != 1 || s.Wait != 9 {
		t.Errorf("held back: %+v", s)
	}
}
