package lsptool

import (
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/gantry-dev/gantry/internal/config"
	"github.com/gantry-dev/gantry/internal/config/configtest"
	"github.com/gantry-dev/gantry/internal/lsp"
)

// The lsp section, declared in this package, is checked by config's loader: each
// problem names the file, the line and the key, and an unknown key of a server row
// gets a suggestion.
func TestSectionErrors(t *testing.T) {
	e := configtest.New(t)
	for _, c := range []struct{ yaml, want string }{
		{"lsp:\n  diagnosticsWait: 61\n",
			`:2: key "lsp.diagnosticsWait" must be between 0 (the default, 10) and 60 (seconds), not 61`},
		{"model: m\nlsp:\n  servers:\n    zls:\n      command: zls\n      languages: [zig]\n",
			`:6: key "lsp.servers.zls.languages[0]" must be a file extension with its dot, such as ".go", not "zig"`},
		{"lsp:\n  servers:\n    zls:\n      command: zls\n      markers: [a/b]\n",
			`:5: key "lsp.servers.zls.markers[0]" must be a file name, such as "go.mod", not "a/b"`},
		{"lsp:\n  servers:\n    gopls:\n      args: [-v]\n",
			`:4: key "lsp.servers.gopls.args" needs a command to pass them to`},
		{"lsp:\n  servers:\n    vtsls:\n      command: vtsls\n      cleanProbe: tsc\n",
			`:5: key "lsp.servers.vtsls.cleanProbe" must be one of tsserver, not "tsc"`},
		{"lsp:\n  servers:\n    gopls:\n\n      comand: /opt/gopls\n",
			`:5: unknown key "lsp.servers.gopls.comand"; did you mean "command"?`},
		{"lsp:\n  diagnosticWait: 3\n", `:2: unknown key "lsp.diagnosticWait"; did you mean "diagnosticsWait"?`},
		{"lsp:\n  diagnosticsWait: soon\n", `:2: key "lsp.diagnosticsWait" must be an integer`},
	} {
		path := e.ProjectFile(t, c.yaml)
		_, err := config.Load(e.Root)
		if err == nil || err.Error() != path+c.want {
			t.Errorf("%q:\n got %v\nwant %s%s", c.yaml, err, path, c.want)
		}
	}
}

// The user's file and the project's merge: a scalar the project sets wins, a row of
// a name replaces the earlier file's; a project's servers wait for its trust.
func TestSectionMerge(t *testing.T) {
	e := configtest.New(t)
	e.UserFile(t, "lsp:\n  diagnosticsWait: 5\n  servers:\n    gopls:\n      command: /opt/gopls\n")
	e.ProjectFile(t, "lsp:\n  servers:\n    zls:\n      command: zls\n      args: [--x]\n      languages: [.zig]\n      markers: [build.zig]\n      initializationOptions: {semantic: true}\n")
	c, err := config.Load(e.Root)
	if err != nil {
		t.Fatal(err)
	}
	s := Section.Of(c)
	if s.DiagnosticsWait != 5 || s.Servers["gopls"].Command != "/opt/gopls" || s.Servers["zls"].Languages[0] != ".zig" ||
		s.Servers["zls"].InitializationOptions["semantic"] != true {
		t.Fatalf("lsp: %+v", s)
	}
	if c, err = config.LoadHeld(e.Root); err != nil {
		t.Fatal(err)
	}
	if got := strings.Join(c.Held().Programs, "|"); got != "lsp.servers.zls: zls --x" {
		t.Errorf("held %q", got)
	}
	if s := Section.Of(c); len(s.Servers) != 1 || s.Servers["gopls"].Command != "/opt/gopls" {
		t.Errorf("held back: %+v", s)
	}
}

// An enabled plugin's language servers join the table, but for a name the files
// configure, which is said in the plugin's Skipped.
func TestSectionPluginServers(t *testing.T) {
	e := configtest.New(t)
	dir := filepath.Join(e.Home, "plug")
	configtest.Write(t, filepath.Join(dir, ".claude-plugin", "plugin.json"), `{"name": "demo"}`)
	configtest.Write(t, filepath.Join(dir, ".lsp.json"), `{"go": {"command": "gopls", "args": ["serve"], "extensionToLanguage": {".go": "go"}},
		"lua": {"command": "${CLAUDE_PLUGIN_ROOT}/bin/lua-ls", "extensionToLanguage": {".lua": "lua"}}}`)
	e.UserFile(t, "plugins: ["+dir+"]\nlsp:\n  servers:\n    lua:\n      command: my-lua\n      languages: [.lua]\n")
	c, err := config.Load(e.Root)
	if err != nil {
		t.Fatal(err)
	}
	s := Section.Of(c)
	if s.Servers["lua"].Command != "my-lua" || s.Servers["go"].Command != "gopls" || s.Servers["go"].LanguageID != "go" {
		t.Errorf("table %+v", s.Servers)
	}
	if ps := c.Plugins(); len(ps) != 1 || !slices.ContainsFunc(ps[0].Skipped, func(s string) bool { return strings.Contains(s, "language server lua was left out") }) {
		t.Errorf("plugins %+v", ps)
	}
}

// Every key of a row reaches the server table; a built-in row keeps what the row
// leaves; a new row without markers gets those of the built-in rows of its
// extensions, then .git.
func TestManagerOptions(t *testing.T) {
	c := Config{DiagnosticsWait: 5, Servers: map[string]Server{
		"vtsls": {Command: "vtsls", Args: []string{"--stdio"}, Markers: []string{"package.json"}, Languages: []string{".mts"},
			InitializationOptions: map[string]any{"a": 1}, Checker: "tsc", LanguageID: "typescript",
			ReadyOnDiagnostics: true, CleanProbe: "tsserver"},
		"gopls": {Checker: "staticcheck ./..."},
		"golsp": {Command: "golsp", Languages: []string{".go"}},
	}}
	o := c.ManagerOptions()
	if o.DiagnosticsWait != 5*time.Second {
		t.Errorf("wait %v", o.DiagnosticsWait)
	}
	rows := map[string]lsp.Spec{}
	for _, s := range o.Servers {
		rows[s.Name] = s
	}
	want := lsp.Spec{Name: "vtsls", Commands: []string{"vtsls"}, Args: []string{"--stdio"}, Markers: []string{"package.json"},
		Extensions: []string{".mts"}, InitOptions: []byte(`{"a":1}`), Checker: "tsc", LanguageID: "typescript",
		ReadyOnDiagnostics: true, CleanProbe: "tsserver"}
	if !reflect.DeepEqual(rows["vtsls"], want) {
		t.Errorf("the vtsls row:\n got %+v\nwant %+v", rows["vtsls"], want)
	}
	if gp := rows["gopls"]; gp.Checker != "staticcheck ./..." || !slices.Equal(gp.Commands, []string{"gopls"}) || !slices.Equal(gp.Markers, []string{"go.mod"}) {
		t.Errorf("the gopls row keeps what the config leaves: %+v", gp)
	}
	if m := rows["golsp"].Markers; !slices.Equal(m, []string{"go.mod", ".git"}) {
		t.Errorf("a new row's markers %v", m)
	}
}
