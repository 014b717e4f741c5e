package config

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"maps"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
)

// PluginManifest is a plugin's manifest, relative to its root, as Claude Code lays
// a plugin out (docs/plugins.md).
const PluginManifest = ".claude-plugin/plugin.json"

// PluginRootVar is the variable a plugin's hook and MCP server commands use for the
// plugin's own folder; gantry writes the folder in its place when it reads them.
const PluginRootVar = "${CLAUDE_PLUGIN_ROOT}"

// PluginRootEnv is the environment variable that holds a plugin's folder in the
// processes of its hooks and of the MCP servers it starts.
const PluginRootEnv = "CLAUDE_PLUGIN_ROOT"

// Plugin is one plugin folder as gantry reads it: the folders of its commands,
// agents and skills (the default ones that exist, then the manifest's extra ones),
// its hooks and its MCP servers, with PluginRootVar replaced by Root.
type Plugin struct {
	Name, Description, Version, Author string
	// Root is the plugin's folder, absolute.
	Root string
	// Commands, Agents and Skills are the folders of each kind of part; Commands may
	// also hold single .md files the manifest names.
	Commands, Agents, Skills []string
	// Hooks are its hooks by event, marked Claude (they are Claude Code's shape).
	Hooks map[string][]HookMatcher
	// MCPServers are its MCP servers by the name its file gives them.
	MCPServers map[string]MCPServer
	// OutputStyles are the folders (or single .md files) of its output styles.
	OutputStyles []string
	// LSPServers are its language servers by the name its file gives them, as rows
	// of gantry's server table (pluginlsp.go).
	LSPServers map[string]PluginLSPServer
	// Skipped says what of the plugin gantry does not take, one sentence each.
	Skipped []string
}

// pluginName is the form Claude Code's manifest reference gives a plugin's name.
var pluginName = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9._-]*$`) })

// ValidPluginName says whether s can name a plugin (and so a folder of PluginsDir).
func ValidPluginName(s string) bool { return pluginName().MatchString(s) }

// manifest is plugin.json: the component keys are a path, a list of paths, or (hooks
// and mcpServers) the object itself.
type manifest struct {
	Name        string          `json:"name"`
	Description string          `json:"description"`
	Version     string          `json:"version"`
	Author      json.RawMessage `json:"author"`
	Commands    json.RawMessage `json:"commands"`
	Agents      json.RawMessage `json:"agents"`
	Skills      json.RawMessage `json:"skills"`
	Hooks       json.RawMessage `json:"hooks"`
	MCPServers  json.RawMessage `json:"mcpServers"`
	Styles      json.RawMessage `json:"outputStyles"`
	LSPServers  json.RawMessage `json:"lspServers"`
}

// ReadPlugin reads the plugin in dir. Without a manifest the plugin is named after
// its folder, as Claude Code does for a folder it is given. A manifest that is not
// JSON, a name that is not one, a path leaving the plugin's folder or a hooks file
// that is not valid is an error; parts gantry cannot use are in Skipped.
func ReadPlugin(dir string) (Plugin, error) {
	root, err := filepath.Abs(dir)
	if err != nil {
		return Plugin{}, fmt.Errorf("plugin folder %s: %w", dir, err)
	}
	if fi, err := os.Stat(root); err != nil || !fi.IsDir() {
		return Plugin{}, fmt.Errorf("plugin folder %s is not a folder", dir)
	}
	p := Plugin{Root: root, Name: filepath.Base(root)}
	var m manifest
	mpath := filepath.Join(root, PluginManifest)
	data, err := os.ReadFile(mpath)
	switch {
	case errors.Is(err, fs.ErrNotExist):
	case err != nil:
		return p, fmt.Errorf("plugin manifest: %w", err)
	default:
		if err := json.Unmarshal(data, &m); err != nil {
			return p, &FileError{Path: mpath, Line: jsonLine(data, err), Msg: fmt.Sprintf("is not a plugin manifest: %v", err)}
		}
		if m.Name != "" {
			p.Name = m.Name
		}
		p.Description, p.Version, p.Author = m.Description, m.Version, authorName(m.Author)
	}
	if !pluginName().MatchString(p.Name) {
		return p, &FileError{Path: mpath, Key: "name", Msg: fmt.Sprintf("the plugin name %q is not one word of letters, digits, dots, dashes and underscores", p.Name)}
	}
	for _, part := range []struct {
		key, def string
		raw      json.RawMessage
		dst      *[]string
	}{{"commands", "commands", m.Commands, &p.Commands}, {"agents", "agents", m.Agents, &p.Agents}, {"skills", "skills", m.Skills, &p.Skills},
		{"outputStyles", "output-styles", m.Styles, &p.OutputStyles}} {
		if isDir(filepath.Join(root, part.def)) {
			*part.dst = append(*part.dst, filepath.Join(root, part.def))
		}
		extra, err := pluginPaths(root, mpath, part.key, part.raw)
		if err != nil {
			return p, err
		}
		*part.dst = append(*part.dst, extra...)
	}
	if err := p.readHooks(mpath, m.Hooks); err != nil {
		return p, err
	}
	if err := p.readMCP(mpath, m.MCPServers); err != nil {
		return p, err
	}
	if err := p.readLSP(mpath, m.LSPServers); err != nil {
		return p, err
	}
	return p, nil
}

// authorName is the manifest's author: an object with a name, or a string.
func authorName(raw json.RawMessage) string {
	var a struct {
		Name string `json:"name"`
	}
	if json.Unmarshal(raw, &a) == nil && a.Name != "" {
		return a.Name
	}
	var s string
	if json.Unmarshal(raw, &s) == nil {
		return s
	}
	return ""
}

// pluginPaths reads a manifest key that is a path or a list of paths, each relative
// to the plugin's root and inside it.
func pluginPaths(root, mpath, key string, raw json.RawMessage) ([]string, error) {
	if len(raw) == 0 || string(raw) == "null" {
		return nil, nil
	}
	var list []string
	var one string
	if err := json.Unmarshal(raw, &one); err == nil {
		list = []string{one}
	} else if err := json.Unmarshal(raw, &list); err != nil {
		return nil, &FileError{Path: mpath, Key: key, Msg: "must be a path or a list of paths"}
	}
	var out []string
	for _, s := range list {
		p, err := insidePlugin(root, mpath, key, s)
		if err != nil {
			return nil, err
		}
		out = append(out, p)
	}
	return out, nil
}

// insidePlugin is the path s of the manifest key, made absolute against root; a
// path outside the plugin's folder is an error.
func insidePlugin(root, mpath, key, s string) (string, error) {
	p := filepath.Join(root, strings.ReplaceAll(s, PluginRootVar, "."))
	if rel, err := filepath.Rel(root, p); err != nil || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) || filepath.IsAbs(s) {
		return "", &FileError{Path: mpath, Key: key, Msg: fmt.Sprintf("the path %q is not inside the plugin's folder", s)}
	}
	return p, nil
}

// readHooks takes hooks/hooks.json when there is one, and the manifest's hooks (a
// path to another such file, or the hooks object itself).
func (p *Plugin) readHooks(mpath string, raw json.RawMessage) error {
	var files []string
	if def := filepath.Join(p.Root, "hooks", "hooks.json"); isFile(def) {
		files = append(files, def)
	}
	var inline map[string][]claudeMatcher
	if len(raw) > 0 && string(raw) != "null" {
		var wrapped struct {
			Hooks map[string][]claudeMatcher `json:"hooks"`
		}
		if raw[0] == '{' {
			if err := json.Unmarshal(raw, &wrapped); err == nil && wrapped.Hooks != nil {
				inline = wrapped.Hooks
			} else if err := json.Unmarshal(raw, &inline); err != nil {
				return &FileError{Path: mpath, Key: "hooks", Msg: fmt.Sprintf("is not a hooks object: %v", err)}
			}
		} else {
			extra, err := pluginPaths(p.Root, mpath, "hooks", raw)
			if err != nil {
				return err
			}
			for _, f := range extra {
				if len(files) == 0 || files[0] != f {
					files = append(files, f)
				}
			}
		}
	}
	c := &Config{}
	rec := &ClaudeFile{}
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			return fmt.Errorf("plugin %s hooks: %w", p.Name, err)
		}
		var hf struct {
			Hooks map[string][]claudeMatcher `json:"hooks"`
		}
		if err := json.Unmarshal(data, &hf); err != nil {
			return &FileError{Path: f, Line: jsonLine(data, err), Msg: fmt.Sprintf("is not a hooks file: %v", err)}
		}
		if err := takeClaudeHooks(c, f, p.Root, hf.Hooks, rec); err != nil {
			return err
		}
	}
	if inline != nil {
		if err := takeClaudeHooks(c, mpath, p.Root, inline, rec); err != nil {
			return err
		}
	}
	for event, ms := range c.Hooks {
		for i := range ms {
			for j := range ms[i].Hooks {
				h := &ms[i].Hooks[j]
				h.Command = strings.ReplaceAll(h.Command, PluginRootVar, p.Root)
				h.Prompt = strings.ReplaceAll(h.Prompt, PluginRootVar, p.Root)
				h.PluginRoot = p.Root
			}
		}
		c.Hooks[event] = ms
	}
	p.Hooks = c.Hooks
	p.Skipped = append(p.Skipped, rec.Skipped...)
	return nil
}

// partFile is one file (or the manifest's inline object) of a plugin's servers.
type partFile struct {
	path string
	data []byte
}

// partFiles are the files of one kind of a plugin's servers: def at the plugin's
// root when there is one, then what the manifest's key gives — a path or a list of
// paths to such files (inside the plugin), or the object itself.
func (p *Plugin) partFiles(mpath, def, key string, raw json.RawMessage) ([]partFile, error) {
	var srcs []partFile
	add := func(path string) error {
		data, err := readJSONFile(path, maxFileSize)
		if err != nil {
			return err
		}
		srcs = append(srcs, partFile{path, data})
		return nil
	}
	if f := filepath.Join(p.Root, def); isFile(f) {
		if err := add(f); err != nil {
			return nil, err
		}
	}
	if len(raw) == 0 || string(raw) == "null" {
		return srcs, nil
	}
	if raw[0] == '{' {
		return append(srcs, partFile{mpath, raw}), nil
	}
	extra, err := pluginPaths(p.Root, mpath, key, raw)
	if err != nil {
		return nil, err
	}
	for _, f := range extra {
		if err := add(f); err != nil {
			return nil, err
		}
	}
	return srcs, nil
}

// readMCP takes .mcp.json at the plugin's root when there is one, and the
// manifest's mcpServers (a path to another such file, or the servers themselves).
func (p *Plugin) readMCP(mpath string, raw json.RawMessage) error {
	srcs, err := p.partFiles(mpath, MCPJSONFile, "mcpServers", raw)
	if err != nil {
		return err
	}
	expand := func(s string) string { return strings.ReplaceAll(s, PluginRootVar, p.Root) }
	for _, s := range srcs {
		servers, problem := mcpJSONServers(s.path, s.data)
		if problem != "" {
			p.Skipped = append(p.Skipped, problem)
		}
		for _, js := range servers {
			srv := js.server
			srv.Command, srv.Cwd, srv.URL = expand(srv.Command), expand(srv.Cwd), expand(srv.URL)
			for i := range srv.Args {
				srv.Args[i] = expand(srv.Args[i])
			}
			srv.Env = expandValues(srv.Env, expand)
			srv.Headers = expandValues(srv.Headers, expand)
			if srv.Cwd != "" && !filepath.IsAbs(srv.Cwd) {
				srv.Cwd = filepath.Join(p.Root, srv.Cwd)
			}
			if srv.URL == "" && srv.Type != "http" && srv.Type != "sse" {
				// A server the plugin starts reads its folder as Claude Code gives it.
				if _, ok := srv.Env[PluginRootEnv]; !ok {
					srv.Env = maps.Clone(srv.Env)
					if srv.Env == nil {
						srv.Env = map[string]string{}
					}
					srv.Env[PluginRootEnv] = p.Root
				}
			}
			if p.MCPServers == nil {
				p.MCPServers = map[string]MCPServer{}
			}
			p.MCPServers[js.name] = srv
		}
	}
	return nil
}

// isDir and isFile say whether path is a folder, a regular file.
func isDir(path string) bool {
	fi, err := os.Stat(path)
	return err == nil && fi.IsDir()
}

func isFile(path string) bool {
	fi, err := os.Stat(path)
	return err == nil && fi.Mode().IsRegular()
}
