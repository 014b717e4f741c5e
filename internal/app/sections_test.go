package app

import (
	"os"
	"slices"
	"strings"
	"testing"

	"github.com/gantry-dev/gantry/internal/config"
	"github.com/gantry-dev/gantry/internal/config/configtest"
	"github.com/gantry-dev/gantry/internal/tools/debugtool"
	"github.com/gantry-dev/gantry/internal/tools/evaltool"
	"github.com/gantry-dev/gantry/internal/tools/lsptool"
)

// Every config section a tool family registers is documented in docs/config.md:
// each of its keys in the keys table, and each key of its rows on its line.
func TestToolSectionsDocumented(t *testing.T) {
	b, err := os.ReadFile("../../docs/config.md")
	if err != nil {
		t.Fatal(err)
	}
	doc := string(b)
	var keys []string
	for _, s := range config.Sections() {
		keys = append(keys, s.Key)
		if strings.TrimSpace(s.Doc) == "" {
			t.Errorf("section %s has no Doc", s.Key)
		}
		for _, k := range s.Keys {
			parent, row, isRow := strings.Cut(k, ".*.")
			if !isRow {
				if !strings.Contains(doc, "| `"+k+"` |") {
					t.Errorf("docs/config.md has no row for %s", k)
				}
				continue
			}
			i := strings.Index(doc, "| `"+parent+"` |")
			if i < 0 {
				continue // said above
			}
			line, _, _ := strings.Cut(doc[i:], "\n")
			if !strings.Contains(line, "`"+row+"`") {
				t.Errorf("docs/config.md's row of %s does not name its key %s", parent, row)
			}
		}
	}
	for _, k := range []string{"debug", "eval", "lsp"} {
		if !slices.Contains(keys, k) {
			t.Errorf("section %s is not registered: %v", k, keys)
		}
	}
}

// The programs a project's config.yaml would have gantry start later — language
// servers, debug adapters, interpreters, each declared by its tool's section — are
// held back until the folder is trusted; the user's are not.
func TestLoadHeldLeavesOutTheProjectsPrograms(t *testing.T) {
	e := configtest.New(t)
	e.UserFile(t, "lsp:\n  servers:\n    gopls:\n      command: /opt/gopls\n")
	e.ProjectFile(t, "lsp:\n  diagnosticsWait: 4\n  servers:\n    zls:\n      command: evil-zls\n      args: [--x]\n      languages: [.zig]\n"+
		"debug:\n  python: /evil/python\n  adapters:\n    node:\n      command: [evil-adapter, dap]\n"+
		"eval:\n  node: /evil/node\n  idleTimeout: 30\n")
	c, err := config.LoadHeld(e.Root)
	if err != nil {
		t.Fatal(err)
	}
	want := "debug.adapters.node: evil-adapter dap|debug.python: /evil/python|eval.node: /evil/node|lsp.servers.zls: evil-zls --x"
	if got := strings.Join(c.Held().Programs, "|"); got != want {
		t.Errorf("held programs %q, want %q", got, want)
	}
	l, d, ev := lsptool.Section.Of(c), debugtool.Section.Of(c), evaltool.Section.Of(c)
	if _, ok := l.Servers["gopls"]; !ok || len(l.Servers) != 1 || len(d.Adapters) != 0 || d.Python != "" || ev.Node != "" ||
		l.DiagnosticsWait != 4 || ev.IdleTimeout != 30 {
		t.Errorf("lsp %+v, debug %+v, eval %+v", l, d, ev)
	}
}
