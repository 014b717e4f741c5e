package config

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"sync"
)

// LoadedPlugin is an enabled plugin of a session: the plugin, where it was enabled
// (Scope: user or project) and by which file (From).
type LoadedPlugin struct {
	Plugin
	Scope, From string
}

// pluginRef is one plugin a file enables: a folder, or (Claude Code's enabledPlugins)
// a name in a marketplace, found when every file has been read.
type pluginRef struct {
	dir, name, market string
	project           bool
	from              string
}

// claudeMarketplace is an entry of Claude Code's extraKnownMarketplaces or of its
// known_marketplaces.json: a local folder ("directory"), or a git repository
// ("git" with its url, "github" with its repo) that gantry or Claude Code fetched.
type claudeMarketplace struct {
	Source struct {
		Source string `json:"source"`
		Path   string `json:"path"`
		Repo   string `json:"repo"`
		URL    string `json:"url"`
	} `json:"source"`
	InstallLocation string `json:"installLocation"`
}

// gitURL is the repository of a git or github marketplace source, "" for another.
func (m claudeMarketplace) gitURL() string {
	switch m.Source.Source {
	case "git":
		return m.Source.URL
	case "github":
		return GitHubURL(m.Source.Repo)
	}
	return ""
}

// Plugins returns the enabled plugins, the user's then the project's, in the order
// their files name them. A project's plugins are there only in a trusted folder.
func (c *Config) Plugins() []LoadedPlugin {
	if c.plugins == nil {
		return nil
	}
	c.plugins.mu.Lock()
	defer c.plugins.mu.Unlock()
	return slices.Clone(c.plugins.list)
}

// SetPlugins replaces the enabled plugins (with a trusted folder's, once trusted):
// safe while a face reads them (its completion lists their commands) on a Config
// made by Load.
func (c *Config) SetPlugins(p []LoadedPlugin) {
	if c.plugins == nil {
		c.plugins = &pluginSet{}
	}
	c.plugins.mu.Lock()
	defer c.plugins.mu.Unlock()
	c.plugins.list = slices.Clone(p)
}

// pluginSet holds a Config's enabled plugins behind a lock; copies of the Config
// share it.
type pluginSet struct {
	mu   sync.Mutex
	list []LoadedPlugin
}

// addPluginDirs records the folders of a gantry config file's plugins key: relative
// ones are relative to the project root (a project's file) or the user's folder.
func (c *Config) addPluginDirs(path string, dirs []string, project bool) {
	base := UserDir()
	if project {
		base = c.root
	}
	for _, d := range dirs {
		d = expandHome(d)
		if !filepath.IsAbs(d) {
			d = filepath.Join(base, d)
		}
		c.pluginRefs = append(c.pluginRefs, pluginRef{dir: filepath.Clean(d), project: project, from: path})
	}
}

// addClaudePlugins records the enabledPlugins ("name@marketplace": true) and the
// extraKnownMarketplaces of one Claude Code settings file.
func (c *Config) addClaudePlugins(path string, enabled map[string]json.RawMessage, markets map[string]claudeMarketplace, project bool, rec *ClaudeFile) {
	for _, name := range sortedKeys(markets) {
		m := markets[name]
		if url := m.gitURL(); url != "" {
			// Fetched by `gantry plugin marketplace add`, never when loading.
			c.addMarket(KnownMarketplace{Name: name, Source: url, From: path})
			continue
		}
		if m.Source.Source != "directory" || m.Source.Path == "" {
			rec.Skipped = append(rec.Skipped, fmt.Sprintf("the marketplace %s was skipped: gantry reads marketplaces in a local folder (source \"directory\") or a git repository (\"git\", \"github\")", name))
			continue
		}
		dir := expandHome(m.Source.Path)
		if !filepath.IsAbs(dir) {
			dir = filepath.Join(c.root, dir)
		}
		c.addMarket(KnownMarketplace{Name: name, Dir: filepath.Clean(dir), Source: m.Source.Path, From: path})
	}
	names := make([]string, 0, len(enabled))
	for n := range enabled {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		var on bool
		if json.Unmarshal(enabled[n], &on) != nil {
			var versions []string
			on = json.Unmarshal(enabled[n], &versions) == nil
		}
		if !on {
			continue
		}
		plugin, market, ok := strings.Cut(n, "@")
		if !ok || plugin == "" || market == "" {
			rec.Skipped = append(rec.Skipped, fmt.Sprintf("the enabled plugin %q was skipped: it is not of the form name@marketplace", n))
			continue
		}
		c.pluginRefs = append(c.pluginRefs, pluginRef{name: plugin, market: market, project: project, from: path})
	}
}

// knownMarketplaces reads gantry's marketplaces.json, then Claude Code's
// ~/.claude/plugins/known_marketplaces.json, into c.markets, below the settings
// files' extraKnownMarketplaces: the folder of a local ("directory") marketplace,
// or the installLocation Claude Code copied it to.
func (c *Config) knownMarketplaces() {
	c.gantryMarketplaces()
	// Claude Code's own marketplace, which it knows without being told, once a
	// setting enables one of its plugins: fetched by `gantry plugin marketplace add
	// claude-plugins-official`.
	if slices.ContainsFunc(c.pluginRefs, func(r pluginRef) bool { return r.market == OfficialMarketplace }) {
		defer c.addMarket(Official())
	}
	d := ClaudeDir()
	if d == "" {
		return
	}
	path := filepath.Join(d, "plugins", "known_marketplaces.json")
	data, err := readJSONFile(path, maxFileSize)
	if errors.Is(err, fs.ErrNotExist) {
		return
	}
	if err != nil {
		c.PluginProblems = append(c.PluginProblems, err.Error())
		return
	}
	var known map[string]claudeMarketplace
	if err := json.Unmarshal(data, &known); err != nil {
		c.PluginProblems = append(c.PluginProblems, fmt.Sprintf("%s is not a list of marketplaces gantry can read: %v", path, err))
		return
	}
	for _, name := range sortedKeys(known) {
		m := known[name]
		dir, source := m.InstallLocation, m.gitURL()
		if m.Source.Source == "directory" && m.Source.Path != "" {
			dir, source = m.Source.Path, m.Source.Path
		}
		if dir == "" {
			continue
		}
		c.addMarket(KnownMarketplace{Name: name, Dir: filepath.Clean(expandHome(dir)), Source: source, From: path})
	}
}

// loadPlugins reads the plugins the files enabled, each folder once, into c: its
// hooks join c.Hooks and its MCP servers c.MCPServers (a name taken already is left
// out and said). A project's plugins are held back, with their hooks and servers
// said in Held, while the folder is not trusted. What cannot be read is a notice in
// PluginProblems, never an error: a plugin is not the person's own file.
func (c *Config) loadPlugins() {
	c.knownMarketplaces()
	if len(c.pluginRefs) == 0 {
		return
	}
	var loaded []LoadedPlugin
	seen := map[string]bool{}
	for _, r := range c.pluginRefs {
		dir := r.dir
		if dir == "" {
			m, ok := c.markets[r.market]
			switch {
			case !ok:
				c.PluginProblems = append(c.PluginProblems, fmt.Sprintf("The plugin %s@%s (%s) is not loaded: gantry knows no marketplace %s.", r.name, r.market, r.from, r.market))
				continue
			case m.Dir == "":
				c.PluginProblems = append(c.PluginProblems, fmt.Sprintf("The plugin %s@%s (%s) is not loaded: the marketplace %s is not fetched: run gantry plugin marketplace add %s.", r.name, r.market, r.from, r.market, m.Source))
				continue
			}
			mdir := m.Dir
			_, list, err := ReadMarketplace(mdir)
			if err != nil {
				c.PluginProblems = append(c.PluginProblems, fmt.Sprintf("The plugin %s@%s (%s) is not loaded: %v.", r.name, r.market, r.from, err))
				continue
			}
			i := slices.IndexFunc(list, func(p MarketplacePlugin) bool { return p.Name == r.name })
			switch {
			case i < 0:
				c.PluginProblems = append(c.PluginProblems, fmt.Sprintf("The plugin %s@%s (%s) is not loaded: the marketplace %s has no plugin %s.", r.name, r.market, r.from, mdir, r.name))
				continue
			case list[i].Problem != "":
				c.PluginProblems = append(c.PluginProblems, fmt.Sprintf("The plugin %s@%s (%s) is not loaded: %s.", r.name, r.market, r.from, list[i].Problem))
				continue
			}
			if dir = list[i].Dir; list[i].GitURL != "" {
				// Cloned by `gantry plugin add name@marketplace`, never when loading.
				dir = filepath.Join(PluginsDir(), r.name)
				if !pluginName().MatchString(r.name) || !isDir(dir) {
					c.PluginProblems = append(c.PluginProblems, fmt.Sprintf("The plugin %s@%s (%s) is not loaded: its source is the git repository %s, not cloned yet: run gantry plugin add %s@%s.", r.name, r.market, r.from, list[i].GitURL, r.name, r.market))
					continue
				}
			}
		}
		if seen[dir] {
			continue
		}
		seen[dir] = true
		p, err := ReadPlugin(dir)
		if err != nil {
			c.PluginProblems = append(c.PluginProblems, fmt.Sprintf("The plugin %s (%s) is not loaded: %v.", dir, r.from, err))
			continue
		}
		if r.project && c.hold {
			// Named even with no hooks or servers, so that the folder's trust is
			// asked before its commands, agents and skills are offered.
			c.held.Programs = append(c.held.Programs, fmt.Sprintf("plugins: %s (%s)", p.Root, r.from))
			c.holdHooks(p.Root, p.Hooks)
			for _, n := range sortedKeys(p.MCPServers) {
				c.holdServer(n, p.MCPServers[n])
			}
			for _, n := range sortedKeys(p.LSPServers) {
				s := p.LSPServers[n]
				c.held.Programs = append(c.held.Programs, fmt.Sprintf("lsp.servers.%s: %s (%s)", n, strings.Join(append([]string{s.Command}, s.Args...), " "), p.Root))
			}
			continue
		}
		for event, ms := range p.Hooks {
			if c.Hooks == nil {
				c.Hooks = map[string][]HookMatcher{}
			}
			c.Hooks[event] = append(c.Hooks[event], ms...)
		}
		for _, n := range sortedKeys(p.MCPServers) {
			if _, taken := c.MCPServers[n]; taken {
				p.Skipped = append(p.Skipped, fmt.Sprintf("its MCP server %s was left out: a server of that name is defined already", n))
				continue
			}
			srv := p.MCPServers[n]
			srv.From = filepath.Join(p.Root, MCPJSONFile)
			c.addMCPServer(n, srv)
		}
		if len(c.sections) < len(sections) {
			c.sections = c.sectionValues()
		}
		for _, i := range sectionsByKey() {
			p.Skipped = append(p.Skipped, sections[i].fromPlugin(c.sections[i], &p)...)
		}
		scope := "user"
		if r.project {
			scope = "project"
		}
		loaded = append(loaded, LoadedPlugin{Plugin: p, Scope: scope, From: r.from})
	}
	c.SetPlugins(loaded)
}

// sortedKeys are the keys of m, sorted.
func sortedKeys[V any](m map[string]V) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}
