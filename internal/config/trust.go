package config

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
)

// A folder's project files may make gantry run commands: the servers of .mcp.json,
// the hooks and env of Claude Code's project settings, and .gantry's config.yaml
// (its MCP servers and hooks) and allow rules. Until the person trusts the folder,
// LoadHeld holds those parts back and says what they are (Held); deny and ask rules
// only restrict, and always apply.

// TrustFiles are the project files, relative to the project root, whose content a
// folder's trust is kept for: a change to any of them asks again.
var TrustFiles = slices.Concat([]string{MCPJSONFile, ".claude/settings.json", ".claude/settings.local.json", ".gantry/config.yaml", ".gantry/permissions.yaml", ".gantry/plugins.json",
	CodexProjectConfig}, OpencodeProjectFiles, CrushProjectFiles)

// Held is what a folder not yet trusted would run or apply, as the question shows it.
type Held struct {
	// Servers are the MCP servers: "name: command args…" (or "name: url").
	Servers []string
	// Hooks are the hook commands: "Event: command (file)".
	Hooks []string
	// Env are the names of the variables of the project's Claude settings.
	Env []string
	// Allow are the allow rules: "rule (file:line)"; AllowAll names the file that
	// sets allow_all, or is "".
	Allow    []string
	AllowAll string
	// Programs are the language servers, debug adapters and interpreters the
	// project's config.yaml names: "lsp.servers.go: command args…".
	Programs []string
	// Mode is the permissions.defaultMode of the project's Claude Code settings:
	// "acceptEdits (file)".
	Mode string
}

// Empty reports whether nothing is held back.
func (h Held) Empty() bool {
	return len(h.Servers) == 0 && len(h.Hooks) == 0 && len(h.Env) == 0 && len(h.Allow) == 0 && h.AllowAll == "" && len(h.Programs) == 0 && h.Mode == ""
}

// LoadHeld is Load for a folder that is not trusted: the project's MCP servers, hooks,
// env and allow rules (allow_all) are left out, and Held says what they are. The
// user's files are read whole; the project's deny and ask rules apply.
func LoadHeld(cwd string) (*Config, error) {
	return load(cwd, true)
}

// Held returns what LoadHeld left out.
func (c *Config) Held() Held { return c.held }

// TrustedFolders are the folders of the user config's trustedFolders (a project's
// config cannot trust itself): their project files run without a question.
func (c *Config) TrustedFolders() []string { return c.trusted }

// Trusts reports whether the user's trustedFolders names root or a folder above it.
func (c *Config) Trusts(root string) bool {
	root = filepath.Clean(root)
	for _, d := range c.trusted {
		if root == d || strings.HasPrefix(root, d+string(filepath.Separator)) {
			return true
		}
	}
	return false
}

// holdServer says a project's MCP server is held back.
func (c *Config) holdServer(name string, s MCPServer) {
	what := s.URL
	if s.Command != "" {
		what = strings.Join(append([]string{s.Command}, s.Args...), " ")
	}
	c.held.Servers = append(c.held.Servers, fmt.Sprintf("%s: %s", name, what))
}

// holdServerFrom says a project's MCP server of another tool's file is held back,
// naming the file, which the person may not think of as one that runs anything.
func (c *Config) holdServerFrom(name string, s MCPServer) {
	c.holdServer(name, s)
	c.held.Servers[len(c.held.Servers)-1] += " (" + s.From + ")"
}

// holdHooks says the hooks of hooks (read from path) are held back.
func (c *Config) holdHooks(path string, hooks map[string][]HookMatcher) {
	events := make([]string, 0, len(hooks))
	for e := range hooks {
		events = append(events, e)
	}
	sort.Strings(events)
	for _, e := range events {
		for _, m := range hooks[e] {
			for _, h := range m.Hooks {
				what := h.Command
				if h.Type == "prompt" {
					what = "prompt: " + h.Prompt
				}
				c.held.Hooks = append(c.held.Hooks, fmt.Sprintf("%s: %s (%s)", e, what, path))
			}
		}
	}
}

// holdLayer takes out of a project's config.yaml layer what runs or allows, and
// says it is held back.
func (c *Config) holdLayer(path string, l *layer) {
	names := make([]string, 0, len(l.MCPServers))
	for n := range l.MCPServers {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		c.holdServer(n, l.MCPServers[n])
	}
	c.holdHooks(path, l.Hooks)
	l.MCPServers, l.Hooks = nil, nil
	c.holdPrograms(l)
	if p := l.Permissions; p != nil {
		for i, r := range p.Allow {
			c.held.Allow = append(c.held.Allow, fmt.Sprintf("%s (%s)", r, at(p.allowFrom, i)))
		}
		if p.AllowAll != nil && *p.AllowAll {
			c.held.AllowAll = path
		}
		p.Allow, p.allowFrom, p.AllowAll = nil, nil, nil
	}
}

// holdPrograms takes out of a project's config.yaml layer the programs it would have
// gantry start later (language servers, debug adapters, the kernels' and debugpy's
// interpreters: what the registered sections' layers hold), and says they are held
// back.
func (c *Config) holdPrograms(l *layer) {
	for _, i := range sectionsByKey() {
		if h, ok := l.sections[i].(ProgramHolder); ok {
			for _, p := range h.HoldPrograms() {
				c.held.Programs = append(c.held.Programs, sections[i].key+"."+p)
			}
		}
	}
}

// trustedOf is the trustedFolders of the user's config file at path, cleaned and
// absolute (a relative folder is relative to the file's).
func trustedOf(path string, l *layer) []string {
	var out []string
	for _, d := range l.TrustedFolders {
		d = expandHome(d)
		if !filepath.IsAbs(d) {
			d = filepath.Join(filepath.Dir(path), d)
		}
		out = append(out, filepath.Clean(d))
	}
	return out
}

// HashTrustFiles returns the SHA-256 of each of root's TrustFiles that exists, by its
// name relative to root. A file that cannot be read is an error naming it.
func HashTrustFiles(root string) (map[string]string, error) {
	out := map[string]string{}
	for _, rel := range TrustFiles {
		data, err := os.ReadFile(filepath.Join(root, rel))
		if errors.Is(err, fs.ErrNotExist) {
			continue
		}
		if err != nil {
			return nil, fmt.Errorf("reading %s for the folder's trust: %w", rel, err)
		}
		sum := sha256.Sum256(data)
		out[rel] = hex.EncodeToString(sum[:])
	}
	return out, nil
}
