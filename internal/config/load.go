package config

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strconv"
)

// maxFileSize bounds a configuration file; anything larger is surely not one.
const maxFileSize = 1 << 20

// Load reads the user's and the project's configuration files for a session in cwd
// and merges them over Default: the project file wins. A missing file is not an error;
// a file that cannot be read or decoded is, and names the file (and the line and the
// key where there is one).
func Load(cwd string) (*Config, error) {
	return load(cwd, false)
}

// load is Load, with the project's parts that run or allow held back when hold.
func load(cwd string, hold bool) (*Config, error) {
	c := Default()
	c.root = ProjectRoot(cwd)
	c.hold = hold
	if err := loadClaude(c, c.root); err != nil {
		return nil, err
	}
	c.loadClaudeMCP(cwd)
	for i, path := range []string{
		filepath.Join(UserDir(), "config.yaml"),
		filepath.Join(c.root, ".gantry", "config.yaml"),
	} {
		if slices.Contains(c.files, path) {
			continue // the user folder is the project's .gantry: read it once
		}
		l, err := readFile(path)
		if errors.Is(err, fs.ErrNotExist) {
			continue
		}
		if err != nil {
			return nil, err
		}
		if i == 0 {
			c.trusted = trustedOf(path, l)
		} else if l.TrustedFolders != nil {
			c.Sandbox.Ignored = append(c.Sandbox.Ignored, path+": trustedFolders is honoured only in the user's config")
		}
		if i == 1 && hold {
			c.holdLayer(path, l)
		}
		if l.Plugins != nil {
			c.addPluginDirs(path, *l.Plugins, i == 1)
		}
		l.apply(c)
		if l.Sandbox != nil {
			l.Sandbox.applySandbox(c, path, i == 1)
		}
		if l.Providers != nil {
			l.Providers.applyProviders(c, path, i == 1)
		}
		c.files = append(c.files, path)
	}
	if err := c.readPluginLists(); err != nil {
		return nil, err
	}
	c.loadPlugins()
	c.noteShadowedMCP()
	return c, nil
}

// readFile reads, decodes and validates one configuration file.
func readFile(path string) (*layer, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	if fi, err := f.Stat(); err != nil {
		return nil, err
	} else if fi.IsDir() {
		return nil, &FileError{Path: path, Msg: "is a folder, not a configuration file"}
	}
	data, err := io.ReadAll(io.LimitReader(f, maxFileSize+1))
	if err != nil {
		return nil, err
	}
	if len(data) > maxFileSize {
		return nil, &FileError{Path: path, Msg: "is too large to be a configuration file"}
	}
	return parse(path, data)
}

// parse decodes and validates the YAML of one configuration file named path.
func parse(path string, data []byte) (*layer, error) {
	l, pos, err := decodeFile(path, data)
	if err != nil {
		return nil, err
	}
	if err := validate(path, l, pos); err != nil {
		return nil, err
	}
	for name, srv := range l.MCPServers {
		v := validator{path: path, pos: pos}
		srv.From = fmt.Sprintf("%s:%d", path, v.lineOf(keyPath{"mcpServers", name}))
		l.MCPServers[name] = srv
	}
	if p := l.Permissions; p != nil {
		v := validator{path: path, pos: pos}
		where := func(list string, n int) []string {
			out := make([]string, n)
			for i := range out {
				out[i] = fmt.Sprintf("%s:%d", path, v.lineOf(keyPath{"permissions", list, "[" + strconv.Itoa(i) + "]"}))
			}
			return out
		}
		p.allowFrom, p.denyFrom = where("allow", len(p.Allow)), where("deny", len(p.Deny))
	}
	return l, nil
}
