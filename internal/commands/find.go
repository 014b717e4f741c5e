package commands

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
)

// Command is one custom slash command.
type Command struct {
	// Name is what follows the slash: the file's name without .md ("prompts:name" for
	// a Codex prompt).
	Name string
	// Description is the front matter's description, else the body's first line, with
	// the scope and namespace after it: "(project)", "(user:frontend)".
	Description string
	// ArgumentHint is the front matter's argument-hint ("" when none).
	ArgumentHint string
	// AllowedTools are the entries of allowed-tools, as written.
	AllowedTools []string
	// Model is the front matter's model: the turn runs on it ("" keeps the session's).
	Model string
	// DisableModelInvocation is the front matter's disable-model-invocation: the
	// model may not run the command by itself (gantry never lets it; kept for listing).
	DisableModelInvocation bool
	// Body is the text after the front matter.
	Body string
	// Path is the file's absolute path; Source names its folder's kind (gantry,
	// claude, codex) and Scope its place (project, user).
	Path, Source, Scope string
	// Problems are sentences about what of the file could not be used.
	Problems []string
	// MCPServer and MCPPrompt name an MCP server's prompt (Source "mcp"), whose
	// arguments are MCPArgs, in order: the server gives the text, not a file.
	MCPServer, MCPPrompt string
	MCPArgs              []string
}

// Dirs says where to look; an empty field is not searched.
type Dirs struct {
	// Project is the project's root: .gantry/commands and .claude/commands there
	// (read only when ProjectOK: a folder not trusted has none).
	Project   string
	ProjectOK bool
	// User is gantry's user config folder (config.UserDir), Claude Claude Code's
	// (config.ClaudeDir) and Codex Codex's (config.CodexDir).
	User, Claude, Codex string
	// Plugins are the enabled plugins' command folders (and files), read after the
	// others; their commands are named plugin:command, as Claude Code shows them.
	Plugins []Plugin
}

// Plugin is one enabled plugin's commands: its name, its scope (user, project), its
// folder (Root: what ${CLAUDE_PLUGIN_ROOT} stands for in its commands) and its
// command folders or single .md files.
type Plugin struct {
	Name, Scope, Root string
	Dirs              []string
}

// folder is one place commands are read from.
type folder struct {
	dir, scope, source string
	codex              bool
	// plugin is the plugin's name, for a plugin's folder: its commands' namespace;
	// root is the plugin's folder.
	plugin, root string
}

// Find reads the commands of every folder of d. The first command found with a name
// wins, in this order: the project's (gantry's, then Claude Code's), the user's
// (gantry's, Claude Code's), Codex's prompts. It returns the commands sorted by name,
// the names left out because an earlier folder had them, and what could not be read.
func Find(d Dirs) (cmds []Command, shadowed []string, err error) {
	var folders []folder
	if d.Project != "" && d.ProjectOK {
		folders = append(folders,
			folder{dir: filepath.Join(d.Project, ".gantry", "commands"), scope: "project", source: "gantry"},
			folder{dir: filepath.Join(d.Project, ".claude", "commands"), scope: "project", source: "claude"})
	}
	if d.User != "" {
		folders = append(folders, folder{dir: filepath.Join(d.User, "commands"), scope: "user", source: "gantry"})
	}
	if d.Claude != "" {
		folders = append(folders, folder{dir: filepath.Join(d.Claude, "commands"), scope: "user", source: "claude"})
	}
	if d.Codex != "" {
		folders = append(folders, folder{dir: filepath.Join(d.Codex, "prompts"), scope: "user", source: "codex", codex: true})
	}
	for _, p := range d.Plugins {
		for _, dir := range p.Dirs {
			folders = append(folders, folder{dir: dir, scope: p.Scope, source: "plugin", plugin: p.Name, root: p.Root})
		}
	}
	seen := map[string]bool{}
	var errs []error
	for _, f := range folders {
		found, e := readFolder(f)
		if e != nil {
			errs = append(errs, e)
		}
		for _, c := range found {
			if seen[c.Name] {
				shadowed = append(shadowed, c.Path)
				continue
			}
			seen[c.Name] = true
			cmds = append(cmds, c)
		}
	}
	sort.Slice(cmds, func(i, j int) bool { return cmds[i].Name < cmds[j].Name })
	return cmds, shadowed, errors.Join(errs...)
}

// pluginRoot puts root in the place of ${CLAUDE_PLUGIN_ROOT} in c's body and
// allowed-tools, as Claude Code does for a plugin's commands.
func (c *Command) pluginRoot(root string) {
	const v = "${CLAUDE_PLUGIN_ROOT}"
	c.Body = strings.ReplaceAll(c.Body, v, root)
	for i, t := range c.AllowedTools {
		c.AllowedTools[i] = strings.ReplaceAll(t, v, root)
	}
}

// readFolder reads the commands of one folder (Codex's: its top level only, as Codex
// does; the others: subfolders too, each a namespace).
func readFolder(f folder) ([]Command, error) {
	abs, err := filepath.Abs(f.dir)
	if err != nil {
		return nil, fmt.Errorf("commands folder %s: %w", f.dir, err)
	}
	if _, err := os.Stat(abs); errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	var out []Command
	var errs []error
	walkErr := filepath.WalkDir(abs, func(path string, e fs.DirEntry, err error) error {
		if err != nil {
			errs = append(errs, fmt.Errorf("reading commands in %s: %w", path, err))
			return nil
		}
		if e.IsDir() {
			if path != abs && (f.codex || strings.HasPrefix(e.Name(), ".")) {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(e.Name(), ".md") || strings.HasPrefix(e.Name(), ".") {
			return nil
		}
		data, err := os.ReadFile(path)
		if err != nil {
			errs = append(errs, fmt.Errorf("reading command %s: %w", path, err))
			return nil
		}
		name := strings.TrimSuffix(e.Name(), ".md")
		if strings.ContainsAny(name, " \t") {
			return nil // no way to type it after a slash
		}
		ns := ""
		if rel, err := filepath.Rel(abs, filepath.Dir(path)); err == nil && rel != "." && path != abs {
			ns = filepath.ToSlash(rel)
		}
		c := parse(string(data))
		c.Path, c.Source, c.Scope = path, f.source, f.scope
		c.Name = name
		if f.codex {
			c.Name = "prompts:" + name
		}
		if f.plugin != "" {
			c.Name = f.plugin + ":" + name
		}
		if f.root != "" {
			c.pluginRoot(f.root)
		}
		label := f.scope
		if ns != "" {
			label += ":" + ns
		}
		if f.codex {
			label = "codex"
		}
		if f.plugin != "" {
			label = "plugin " + f.plugin
		}
		c.Description = strings.TrimSpace(c.Description + " (" + label + ")")
		out = append(out, c)
		return nil
	})
	if walkErr != nil {
		errs = append(errs, fmt.Errorf("reading commands in %s: %w", abs, walkErr))
	}
	return out, errors.Join(errs...)
}
