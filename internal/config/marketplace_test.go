package config

import (
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"
)

// A marketplace's plugin sources: a folder of the marketplace, a GitHub repository,
// a url or git repository; the kinds gantry does not clone are named.
func TestReadMarketplaceSources(t *testing.T) {
	dir := t.TempDir()
	write(t, filepath.Join(dir, ".claude-plugin", "marketplace.json"), `{"name": "m", "owner": {"name": "me"}, "plugins": [
		{"name": "here", "source": "./plugins/here"},
		{"name": "hub", "source": {"source": "github", "repo": "octo/hub-plugin", "ref": "v1"}},
		{"name": "byurl", "source": {"source": "url", "url": "file:///srv/byurl.git"}},
		{"name": "bygit", "source": {"source": "git", "url": "https://example.com/x.git"}},
		{"name": "sub", "source": {"source": "git-subdir", "url": "https://example.com/mono.git", "path": "p"}},
		{"name": "pinned", "source": {"source": "github", "repo": "o/r", "sha": "abc"}},
		{"name": "out", "source": "../elsewhere"}]}`)
	name, list, err := ReadMarketplace(dir)
	if err != nil || name != "m" || len(list) != 7 {
		t.Fatalf("%q %+v %v", name, list, err)
	}
	want := []MarketplacePlugin{
		{Name: "here", Dir: filepath.Join(dir, "plugins", "here")},
		{Name: "hub", GitURL: "https://github.com/octo/hub-plugin.git", Ref: "v1"},
		{Name: "byurl", GitURL: "file:///srv/byurl.git"},
		{Name: "bygit", GitURL: "https://example.com/x.git"},
	}
	if !reflect.DeepEqual(list[:4], want) {
		t.Errorf("sources\n%+v\nwant\n%+v", list[:4], want)
	}
	for _, p := range list[4:] {
		if p.Problem == "" || p.Dir != "" || p.GitURL != "" {
			t.Errorf("%s: %+v", p.Name, p)
		}
	}
	if GitHubURL("a/b") != "https://github.com/a/b.git" || GitHubURL("a/b/c") != "" || GitHubURL("../b") != "" {
		t.Errorf("GitHubURL mapping")
	}
}

// A git marketplace the settings name is known but not fetched until gantry's
// marketplaces.json records its clone; a marketplace plugin with a git source
// loads once cloned into the plugins folder.
func TestGitMarketplacesAndPluginsLoadOnlyOnceFetched(t *testing.T) {
	e := newEnv(t)
	write(t, filepath.Join(e.home, ".claude", "settings.json"), `{"enabledPlugins": {"demo@remote": true, "far@remote": true},
		"extraKnownMarketplaces": {"remote": {"source": {"source": "git", "url": "file:///srv/remote.git"}},
			"hub": {"source": {"source": "github", "repo": "o/hub"}}}}`)
	c, err := Load(e.root)
	if err != nil {
		t.Fatal(err)
	}
	if m, ok := c.Marketplace("remote"); !ok || m.Dir != "" || m.Source != "file:///srv/remote.git" {
		t.Errorf("remote %+v", m)
	}
	if m, ok := c.Marketplace("hub"); !ok || m.Source != "https://github.com/o/hub.git" {
		t.Errorf("hub %+v", m)
	}
	got := strings.Join(c.PluginProblems, "\n")
	if len(c.Plugins()) != 0 || !strings.Contains(got, "not fetched: run gantry plugin marketplace add file:///srv/remote.git") {
		t.Errorf("plugins %+v, problems %q", c.Plugins(), got)
	}

	// Fetched: gantry's list records its clone (made here as a folder).
	clone := filepath.Join(MarketplacesDir(), "remote")
	write(t, filepath.Join(clone, ".claude-plugin", "marketplace.json"), `{"name": "remote", "plugins": [
		{"name": "demo", "source": "./demo"}, {"name": "far", "source": {"source": "url", "url": "file:///srv/far.git"}}]}`)
	writePlugin(t, filepath.Join(clone, "demo"), "demo")
	if err := WriteMarketplaceList([]MarketplaceRecord{{Name: "remote", Source: "file:///srv/remote.git", Path: clone}}); err != nil {
		t.Fatal(err)
	}
	c, err = Load(e.root)
	if err != nil {
		t.Fatal(err)
	}
	got = strings.Join(c.PluginProblems, "\n")
	if ps := c.Plugins(); len(ps) != 1 || ps[0].Name != "demo" || !strings.Contains(got, "far@remote") || !strings.Contains(got, "run gantry plugin add far@remote") {
		t.Errorf("plugins %+v, problems %q", ps, got)
	}

	// The git plugin, once cloned into the plugins folder, loads too.
	writePlugin(t, filepath.Join(PluginsDir(), "far"), "far")
	c, err = Load(e.root)
	if err != nil || len(c.Plugins()) != 2 || len(c.PluginProblems) != 0 {
		t.Errorf("plugins %+v, problems %q, %v", c.Plugins(), c.PluginProblems, err)
	}
}

// A plugin's output styles are named plugin:name; its language servers (.lsp.json
// and the manifest's lspServers) become rows of gantry's server table, where the
// user's row of the same name wins; what gantry cannot express is named.
func TestPluginOutputStylesAndLanguageServers(t *testing.T) {
	e := newEnv(t)
	dir := filepath.Join(e.home, "plug")
	writePlugin(t, dir, "demo")
	write(t, filepath.Join(dir, "output-styles", "terse.md"), "---\nname: terse\ndescription: Short\n---\nBe short.\n")
	write(t, filepath.Join(dir, "styles", "loud.md"), "Shout.\n")
	write(t, filepath.Join(dir, ".claude-plugin", "plugin.json"), `{"name": "demo", "outputStyles": "./styles/loud.md",
		"lspServers": {"lua": {"command": "${CLAUDE_PLUGIN_ROOT}/bin/lua-ls", "extensionToLanguage": {".lua": "lua"}, "transport": "stdio"}}}`)
	write(t, filepath.Join(dir, ".lsp.json"), `{"go": {"command": "gopls", "args": ["serve"], "extensionToLanguage": {".go": "go"},
		"env": {"A": "1"}, "startupTimeout": 5000}, "sock": {"command": "x", "extensionToLanguage": {".x": "x"}, "transport": "socket"}}`)
	p, err := ReadPlugin(dir)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(p.OutputStyles, []string{filepath.Join(dir, "output-styles"), filepath.Join(dir, "styles", "loud.md")}) {
		t.Errorf("styles %v", p.OutputStyles)
	}
	wantGo := PluginLSPServer{Command: "gopls", Args: []string{"serve"}, Languages: []string{".go"}, LanguageID: "go"}
	if !reflect.DeepEqual(p.LSPServers["go"], wantGo) || p.LSPServers["lua"].Command != dir+"/bin/lua-ls" || len(p.LSPServers) != 2 {
		t.Errorf("servers %+v", p.LSPServers)
	}
	skipped := strings.Join(p.Skipped, "\n")
	if !strings.Contains(skipped, "go: gantry's server table cannot express env, startupTimeout") || !strings.Contains(skipped, "sock was left out") {
		t.Errorf("skipped %q", skipped)
	}
	styles, err := PluginOutputStyles([]LoadedPlugin{{Plugin: p}})
	if err != nil || len(styles) != 2 || styles[0].Name != "demo:terse" || styles[0].Body != "Be short." || styles[1].Name != "demo:loud" {
		t.Errorf("styles %+v, %v", styles, err)
	}

	// Enabled by the user: the servers join the table; the user's own "lua" wins.
	// (The test's section takes a plugin's servers as the lsp tools' section does.)
	write(t, filepath.Join(e.user, "config.yaml"), "plugins: ["+dir+"]\ndemo:\n  rows:\n    lua:\n      command: my-lua\n")
	c, err := Load(e.root)
	if err != nil {
		t.Fatal(err)
	}
	if rows := demoSection.Of(c).Rows; rows["lua"].Command != "my-lua" || rows["go"].Command != "gopls" {
		t.Errorf("table %+v", rows)
	}
	if ps := c.Plugins(); len(ps) != 1 || !slices.ContainsFunc(ps[0].Skipped, func(s string) bool { return strings.Contains(s, "language server lua was left out") }) {
		t.Errorf("plugins %+v", ps)
	}

	// Enabled by the project: its servers wait for the folder's trust.
	if err := os.Remove(filepath.Join(e.user, "config.yaml")); err != nil {
		t.Fatal(err)
	}
	write(t, filepath.Join(e.root, ".gantry", "config.yaml"), "plugins: ["+dir+"]\n")
	c, err = LoadHeld(e.root)
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := demoSection.Of(c).Rows["go"]; ok || !slices.ContainsFunc(c.Held().Programs, func(s string) bool { return strings.HasPrefix(s, "lsp.servers.go: gopls serve") }) {
		t.Errorf("held %+v, table %+v", c.Held().Programs, demoSection.Of(c).Rows)
	}
	if c, err = Load(e.root); err != nil || demoSection.Of(c).Rows["go"].Command != "gopls" {
		t.Errorf("trusted: table %+v, %v", demoSection.Of(c).Rows, err)
	}
}

// Claude Code's own marketplace is known by name once a setting enables one of its
// plugins (Claude Code declares it nowhere), as not fetched, from GitHub; once
// fetched (recorded in gantry's list) its plugins load. Without such a setting it is
// not listed at all.
func TestOfficialMarketplaceKnownByName(t *testing.T) {
	e := newEnv(t)
	c, err := Load(e.root)
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := c.Marketplace(OfficialMarketplace); ok || len(c.PluginProblems) != 0 {
		t.Fatalf("known without a setting naming it: %q", c.PluginProblems)
	}
	write(t, filepath.Join(e.home, ".claude", "settings.json"), `{"enabledPlugins": {"demo@claude-plugins-official": true}}`)
	if c, err = Load(e.root); err != nil {
		t.Fatal(err)
	}
	if m, ok := c.Marketplace(OfficialMarketplace); !ok || m.Dir != "" || m.Source != "https://github.com/anthropics/claude-plugins-official.git" {
		t.Errorf("official %+v", m)
	}
	if got := strings.Join(c.PluginProblems, "\n"); !strings.Contains(got, "the marketplace claude-plugins-official is not fetched: run gantry plugin marketplace add https://github.com/anthropics/claude-plugins-official.git") {
		t.Errorf("problems %q", got)
	}
	clone := filepath.Join(MarketplacesDir(), OfficialMarketplace)
	write(t, filepath.Join(clone, ".claude-plugin", "marketplace.json"), `{"name": "claude-plugins-official", "plugins": [{"name": "demo", "source": "./plugins/demo"}]}`)
	writePlugin(t, filepath.Join(clone, "plugins", "demo"), "demo")
	if err := WriteMarketplaceList([]MarketplaceRecord{{Name: OfficialMarketplace, Source: "https://github.com/anthropics/claude-plugins-official.git", Path: clone}}); err != nil {
		t.Fatal(err)
	}
	if c, err = Load(e.root); err != nil {
		t.Fatal(err)
	}
	if ps := c.Plugins(); len(ps) != 1 || ps[0].Name != "demo" {
		t.Errorf("plugins %+v, problems %q", ps, c.PluginProblems)
	}
}
