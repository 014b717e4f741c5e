package config

import (
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

// writePlugin writes a plugin in the shape of those of Anthropic's claude-code
// repository: a manifest, one command, one agent, one skill, hooks/hooks.json with
// ${CLAUDE_PLUGIN_ROOT}, and a .mcp.json with one stdio server.
func writePlugin(t *testing.T, dir, name string) {
	t.Helper()
	write(t, filepath.Join(dir, ".claude-plugin", "plugin.json"), `{"name": "`+name+`", "version": "0.1.0", "description": "A test plugin",
		"author": {"name": "Someone", "email": "s@example.com"}}`)
	write(t, filepath.Join(dir, "commands", "hello.md"), "---\ndescription: Say hello\n---\nSay hello to $ARGUMENTS\n")
	write(t, filepath.Join(dir, "agents", "helper.md"), "---\nname: helper\ndescription: Helps\n---\nYou help.\n")
	write(t, filepath.Join(dir, "skills", "greet", "SKILL.md"), "---\nname: greet\ndescription: Greets\n---\nGreet.\n")
	write(t, filepath.Join(dir, "hooks", "hooks.json"), `{"description": "hooks", "hooks": {"PreToolUse": [{"matcher": "Bash", "hooks": [
		{"type": "command", "command": "python3 ${CLAUDE_PLUGIN_ROOT}/hooks/check.py", "timeout": 10}]}]}}`)
	write(t, filepath.Join(dir, ".mcp.json"), `{"mcpServers": {"tools": {"command": "${CLAUDE_PLUGIN_ROOT}/bin/server", "args": ["--root", "${CLAUDE_PLUGIN_ROOT}"]}}}`)
}

// ReadPlugin finds every default part and writes the plugin's folder in place of
// ${CLAUDE_PLUGIN_ROOT}; the manifest's extra paths add to the defaults.
func TestReadPluginTakesTheDefaultLayout(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "plug")
	writePlugin(t, dir, "demo")
	write(t, filepath.Join(dir, "more", "x.md"), "x\n")
	p, err := ReadPlugin(dir)
	if err != nil {
		t.Fatal(err)
	}
	if p.Name != "demo" || p.Version != "0.1.0" || p.Author != "Someone" || p.Description != "A test plugin" || p.Root != dir {
		t.Errorf("plugin %+v", p)
	}
	if !reflect.DeepEqual(p.Commands, []string{filepath.Join(dir, "commands")}) || !reflect.DeepEqual(p.Agents, []string{filepath.Join(dir, "agents")}) || !reflect.DeepEqual(p.Skills, []string{filepath.Join(dir, "skills")}) {
		t.Errorf("folders %v %v %v", p.Commands, p.Agents, p.Skills)
	}
	hm := p.Hooks["PreToolUse"]
	if len(hm) != 1 || hm[0].Matcher != "Bash" || !hm[0].Claude || hm[0].Hooks[0].Command != "python3 "+dir+"/hooks/check.py" || hm[0].Hooks[0].Timeout != 10 {
		t.Errorf("hooks %+v", p.Hooks)
	}
	srv := p.MCPServers["tools"]
	if hm[0].Hooks[0].PluginRoot != dir {
		t.Errorf("the hook's plugin root is %q", hm[0].Hooks[0].PluginRoot)
	}
	if srv.Command != dir+"/bin/server" || !reflect.DeepEqual(srv.Args, []string{"--root", dir}) || srv.Env[PluginRootEnv] != dir {
		t.Errorf("server %+v", srv)
	}

	write(t, filepath.Join(dir, ".claude-plugin", "plugin.json"), `{"name": "demo", "commands": "./more", "agents": ["../outside"]}`)
	if _, err := ReadPlugin(dir); err == nil || !strings.Contains(err.Error(), "not inside the plugin's folder") {
		t.Errorf("a path outside the plugin: %v", err)
	}
	write(t, filepath.Join(dir, ".claude-plugin", "plugin.json"), `{"name": "demo", "commands": "./more"}`)
	p, err = ReadPlugin(dir)
	if err != nil || !reflect.DeepEqual(p.Commands, []string{filepath.Join(dir, "commands"), filepath.Join(dir, "more")}) {
		t.Errorf("extra commands %v, %v", p.Commands, err)
	}
	write(t, filepath.Join(dir, ".claude-plugin", "plugin.json"), `{"name": "bad name"}`)
	if _, err := ReadPlugin(dir); err == nil {
		t.Error("a name with a space was taken")
	}
}

// A plugin of the user's config joins its hooks and servers to the session's; a
// project's is held back in a folder not trusted, and loaded by Load.
func TestPluginsOfTheConfigFiles(t *testing.T) {
	e := newEnv(t)
	userPlug := filepath.Join(e.home, "plugs", "mine")
	writePlugin(t, userPlug, "mine")
	projPlug := filepath.Join(e.root, "vendor", "theirs")
	writePlugin(t, projPlug, "theirs")
	write(t, filepath.Join(projPlug, ".mcp.json"), `{"mcpServers": {"their-tools": {"command": "their-server"}}}`)
	e.userFile(t, "plugins: ~/plugs/mine\n")
	e.projectFile(t, "plugins:\n  - vendor/theirs\n")

	c, err := LoadHeld(e.root)
	if err != nil {
		t.Fatal(err)
	}
	if ps := c.Plugins(); len(ps) != 1 || ps[0].Name != "mine" || ps[0].Scope != "user" {
		t.Fatalf("plugins %+v", ps)
	}
	if _, ok := c.MCPServers["tools"]; !ok || len(c.Hooks["PreToolUse"]) != 1 {
		t.Errorf("servers %v, hooks %v", c.MCPServers, c.Hooks)
	}
	h := c.Held()
	if len(h.Programs) != 1 || !strings.HasPrefix(h.Programs[0], "plugins: "+projPlug+" (") {
		t.Errorf("held programs %q", h.Programs)
	}
	if len(h.Servers) != 1 || h.Servers[0] != "their-tools: their-server" || len(h.Hooks) != 1 || !strings.Contains(h.Hooks[0], projPlug+"/hooks/check.py") {
		t.Errorf("held %+v", h)
	}

	c, err = Load(e.root)
	if err != nil {
		t.Fatal(err)
	}
	if ps := c.Plugins(); len(ps) != 2 || ps[1].Name != "theirs" || ps[1].Scope != "project" {
		t.Fatalf("plugins %+v", ps)
	}
	if _, ok := c.MCPServers["their-tools"]; !ok || len(c.Hooks["PreToolUse"]) != 2 {
		t.Errorf("servers %v, hooks %v", c.MCPServers, c.Hooks)
	}
}

// Claude Code's enabledPlugins names a plugin of a local marketplace (from
// extraKnownMarketplaces or known_marketplaces.json) as name@marketplace.
func TestClaudeEnabledPluginsOfLocalMarketplaces(t *testing.T) {
	e := newEnv(t)
	market := filepath.Join(e.home, "market")
	write(t, filepath.Join(market, ".claude-plugin", "marketplace.json"), `{"name": "local", "owner": {"name": "me"}, "plugins": [
		{"name": "demo", "source": "./plugins/demo"}, {"name": "far", "source": {"source": "github", "repo": "a/b"}}]}`)
	writePlugin(t, filepath.Join(market, "plugins", "demo"), "demo")
	write(t, filepath.Join(e.home, ".claude", "settings.json"), `{"enabledPlugins": {"demo@local": true, "far@local": true, "off@local": false, "x@nowhere": true},
		"extraKnownMarketplaces": {"local": {"source": {"source": "directory", "path": "`+market+`"}}}}`)

	c, err := Load(e.root)
	if err != nil {
		t.Fatal(err)
	}
	if ps := c.Plugins(); len(ps) != 1 || ps[0].Name != "demo" || ps[0].Root != filepath.Join(market, "plugins", "demo") {
		t.Fatalf("plugins %+v", ps)
	}
	got := strings.Join(c.PluginProblems, "\n")
	if !strings.Contains(got, "far@local") || !strings.Contains(got, "x@nowhere") || strings.Contains(got, "off@local") || len(c.PluginProblems) != 2 {
		t.Errorf("problems %q", got)
	}
	for _, f := range c.Claude.Files {
		for _, s := range f.Skipped {
			if strings.Contains(s, "enabledPlugins") {
				t.Errorf("enabledPlugins said unused: %s", s)
			}
		}
	}

	// The same marketplace known to Claude Code by its known_marketplaces.json.
	write(t, filepath.Join(e.home, ".claude", "settings.json"), `{"enabledPlugins": {"demo@local": true}}`)
	write(t, filepath.Join(e.home, ".claude", "plugins", "known_marketplaces.json"), `{"local": {"source": {"source": "directory", "path": "`+market+`"}, "installLocation": "`+market+`"}}`)
	c, err = Load(e.root)
	if err != nil || len(c.Plugins()) != 1 {
		t.Errorf("plugins %+v, %v", c.Plugins(), err)
	}

	// Enabled by the project's Claude settings: held back in a folder not trusted.
	write(t, filepath.Join(e.home, ".claude", "settings.json"), `{}`)
	write(t, filepath.Join(e.root, ".claude", "settings.json"), `{"enabledPlugins": {"demo@local": true}}`)
	if c, err = LoadHeld(e.root); err != nil || len(c.Plugins()) != 0 || len(c.Held().Programs) != 1 || len(c.Held().Hooks) != 1 || len(c.Held().Servers) != 1 {
		t.Errorf("held: plugins %+v, held %+v, %v", c.Plugins(), c.Held(), err)
	}
	if c, err = Load(e.root); err != nil || len(c.Plugins()) != 1 || c.Plugins()[0].Scope != "project" {
		t.Errorf("trusted: plugins %+v, %v", c.Plugins(), err)
	}
}
