package app

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/gantry-dev/gantry/internal/config"
	"github.com/gantry-dev/gantry/internal/llm/scripted"
	"github.com/gantry-dev/gantry/internal/lsp"
	"github.com/gantry-dev/gantry/internal/tools/lsptool"
)

// writeTree writes files (relative path → content) under root.
func writeTree(t *testing.T, root string, files map[string]string) {
	t.Helper()
	for name, body := range files {
		p := filepath.Join(root, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// bareRepo makes a local bare git repository named name holding files, and
// returns its file:// URL: tests clone it, never the network.
func bareRepo(t *testing.T, name string, files map[string]string) string {
	t.Helper()
	src := filepath.Join(t.TempDir(), "src")
	writeTree(t, src, files)
	repo := filepath.Join(t.TempDir(), name+".git")
	for _, args := range [][]string{{"init", "-q", src}, {"-C", src, "add", "."}, {"-C", src, "-c", "user.name=t", "-c", "user.email=t@t", "commit", "-qm", "init"}, {"clone", "-q", "--bare", src, repo}} {
		if out, err := exec.Command("git", args...).CombinedOutput(); err != nil {
			t.Fatalf("git %v: %v %s", args, err, out)
		}
	}
	return "file://" + repo
}

// A git marketplace the Claude settings name is "not fetched" (in list and doctor)
// until `gantry plugin marketplace add NAME` clones it; `gantry plugin add
// name@marketplace` then takes a plugin of its folder in place and clones one with
// a git source into the plugins folder, and the settings' enabledPlugins entry for
// it loads. A local marketplace is recorded by its path, one added by URL is named
// by its marketplace.json, and remove deletes only clones.
func TestMarketplaceAddInstallListRemove(t *testing.T) {
	claude, _ := commandHomes(t)
	dir := project(t, "", map[string]string{})
	ctx := context.Background()
	far := bareRepo(t, "far", map[string]string{
		".claude-plugin/plugin.json": `{"name": "far", "version": "0.3.0"}`,
		"commands/go.md":             "Go far.\n",
	})
	shop := bareRepo(t, "shop", map[string]string{
		".claude-plugin/marketplace.json": `{"name": "shop", "owner": {"name": "t"}, "plugins": [
			{"name": "near", "source": "./plugins/near"}, {"name": "far", "source": {"source": "url", "url": "` + far + `"}}]}`,
		"plugins/near/.claude-plugin/plugin.json": `{"name": "near"}`,
	})
	writeTree(t, claude, map[string]string{"settings.json": `{"enabledPlugins": {"far@shop": true},
		"extraKnownMarketplaces": {"shop": {"source": {"source": "git", "url": "` + shop + `"}}}}`})

	lines, err := ListMarketplaces(dir)
	if err != nil || len(lines) != 1 || !strings.Contains(lines[0], "not fetched: run gantry plugin marketplace add "+shop) {
		t.Fatalf("list before fetch %q, %v", lines, err)
	}
	cfg, err := config.Load(dir)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.ContainsFunc(pluginRows(cfg), func(r DoctorRow) bool {
		return r.Problem && strings.Contains(r.Value, "marketplace shop (") && strings.Contains(r.Value, "not fetched: run gantry plugin marketplace add "+shop)
	}) {
		t.Errorf("doctor rows %+v", pluginRows(cfg))
	}
	if _, err := AddPlugin(ctx, dir, "far@shop", false); err == nil || !strings.Contains(err.Error(), "not fetched") {
		t.Errorf("a plugin of a marketplace not fetched: %v", err)
	}

	m, err := AddMarketplace(ctx, dir, "shop")
	if err != nil || m.Name != "shop" || m.Dir != filepath.Join(config.MarketplacesDir(), "shop") {
		t.Fatalf("add shop %+v, %v", m, err)
	}
	if _, err := AddMarketplace(ctx, dir, shop); err == nil {
		t.Error("the same marketplace added twice")
	}
	near, err := AddPlugin(ctx, dir, "near@shop", false)
	if err != nil || near.Root != filepath.Join(m.Dir, "plugins", "near") {
		t.Errorf("near@shop %+v, %v", near, err)
	}
	p, err := AddPlugin(ctx, dir, "far@shop", false)
	if err != nil || p.Name != "far" || p.Root != filepath.Join(PluginsDir(), "far") {
		t.Fatalf("far@shop %+v, %v", p, err)
	}
	if cfg, err = config.Load(dir); err != nil {
		t.Fatal(err)
	}
	if ps := cfg.Plugins(); len(ps) != 2 || len(cfg.PluginProblems) != 0 {
		t.Errorf("plugins %+v, problems %q", ps, cfg.PluginProblems)
	}
	if _, err := AddPlugin(ctx, dir, "gone@shop", false); err == nil || !strings.Contains(err.Error(), "has no plugin gone") {
		t.Errorf("a plugin the marketplace lacks: %v", err)
	}

	// A local marketplace, by its path; another git one by its URL, named by its file.
	bench := filepath.Join(t.TempDir(), "bench")
	writeTree(t, bench, map[string]string{".claude-plugin/marketplace.json": `{"name": "bench", "plugins": []}`})
	if m, err := AddMarketplace(ctx, dir, bench); err != nil || m.Name != "bench" || m.Dir != bench {
		t.Errorf("add bench %+v, %v", m, err)
	}
	tools := bareRepo(t, "tools", map[string]string{".claude-plugin/marketplace.json": `{"name": "toolbox", "plugins": []}`})
	if m, err := AddMarketplace(ctx, dir, tools); err != nil || m.Name != "toolbox" || m.Dir != filepath.Join(config.MarketplacesDir(), "toolbox") {
		t.Errorf("add toolbox %+v, %v", m, err)
	}
	lines, err = ListMarketplaces(dir)
	if err != nil || len(lines) != 3 || !strings.Contains(lines[1], "marketplace shop (") || !strings.Contains(lines[1], "2 plugin(s): near, far") {
		t.Errorf("list %q, %v", lines, err)
	}

	for _, name := range []string{"bench", "toolbox", "shop"} {
		got, err := RemoveMarketplace(name)
		if err != nil {
			t.Errorf("remove %s: %v", name, err)
		}
		_, serr := os.Stat(got)
		if name == "bench" && serr != nil || name != "bench" && !os.IsNotExist(serr) {
			t.Errorf("after remove %s, %s: %v", name, got, serr)
		}
	}
	if _, err := RemoveMarketplace("shop"); err == nil {
		t.Error("removing a marketplace twice")
	}
	missing := "file://" + filepath.Join(t.TempDir(), "missing.git")
	if _, err := AddMarketplace(ctx, dir, missing); err == nil || !strings.Contains(err.Error(), "does not appear to be a git repository") {
		t.Errorf("a repository that is not there: %v", err)
	}
	if _, err := os.Stat(filepath.Join(config.MarketplacesDir(), "missing")); !os.IsNotExist(err) {
		t.Errorf("a failed clone left its folder: %v", err)
	}
	if _, err := os.Stat(p.Root); err != nil {
		t.Errorf("removing the marketplace removed its installed plugin: %v", err)
	}
}

// A plugin's output style is offered as plugin:name and can be chosen; its language
// server joins the session's table, rooted at the project (.git) as it names no
// markers; doctor counts both.
func TestPluginOutputStyleAndLanguageServerInASession(t *testing.T) {
	commandHomes(t)
	plug := filepath.Join(t.TempDir(), "demo")
	writeTree(t, plug, map[string]string{
		".claude-plugin/plugin.json":  `{"name": "demo"}`,
		"output-styles/terse.md":      "---\ndescription: Short answers\n---\nAnswer in one line.\n",
		".lsp.json":                   `{"lua": {"command": "lua-language-server", "extensionToLanguage": {".lua": "lua"}}}`,
		"output-styles/notes/skip.md": "a subfolder is not read\n",
	})
	dir := project(t, "plugins: ["+plug+"]\n", map[string]string{})
	a := open(t, Options{Cwd: dir, LLM: scripted.New(scripted.Step{Text: "hi"})})
	styles, err := a.OutputStyles()
	if err != nil || !slices.ContainsFunc(styles, func(s config.OutputStyle) bool { return s.Name == "demo:terse" && s.Description == "Short answers" }) {
		t.Fatalf("styles %+v, %v", styles, err)
	}
	if name, err := a.SetOutputStyle("demo:terse"); err != nil || name != "demo:terse" || !strings.Contains(a.agent.Config.System, "Answer in one line.") {
		t.Errorf("set %q, %v", name, err)
	}
	opts := lsptool.Section.Of(a.cfg).ManagerOptions()
	i := slices.IndexFunc(opts.Servers, func(s lsp.Spec) bool { return s.Name == "lua" })
	if i < 0 || !slices.Equal(opts.Servers[i].Markers, []string{".git"}) || opts.Servers[i].LanguageID != "lua" || !slices.Equal(opts.Servers[i].Commands, []string{"lua-language-server"}) {
		t.Errorf("servers %+v", opts.Servers)
	}
	rows := pluginRows(a.cfg)
	if len(rows) < 2 || !strings.Contains(rows[1].Value, "1 output style folder(s), 1 language server(s)") {
		t.Errorf("doctor rows %+v", rows)
	}
	if !slices.ContainsFunc(outputStyleRows(a.cfg, dir), func(r DoctorRow) bool { return strings.HasPrefix(r.Value, "demo:terse: ") }) {
		t.Errorf("doctor's output styles %+v", outputStyleRows(a.cfg, dir))
	}
}
