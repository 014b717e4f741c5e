package config

import (
	"errors"
	"fmt"
	"io/fs"
	"math"
	"path/filepath"
	"sort"
	"strings"

	"github.com/BurntSushi/toml"
)

// codexConfigFile is the part of Codex's config.toml gantry reads: its MCP servers.
type codexConfigFile struct {
	MCPServers map[string]codexServer `toml:"mcp_servers"`
}

// codexServer is a [mcp_servers.NAME] table of Codex's config.toml.
type codexServer struct {
	Command           string            `toml:"command"`
	Args              []string          `toml:"args"`
	Env               map[string]string `toml:"env"`
	Cwd               string            `toml:"cwd"`
	URL               string            `toml:"url"`
	BearerTokenEnvVar string            `toml:"bearer_token_env_var"`
	HTTPHeaders       map[string]string `toml:"http_headers"`
	EnvHTTPHeaders    map[string]string `toml:"env_http_headers"`
	StartupTimeoutSec float64           `toml:"startup_timeout_sec"`
	ToolTimeoutSec    float64           `toml:"tool_timeout_sec"`
	Enabled           *bool             `toml:"enabled"`
}

// CodexProjectConfig is Codex's project config file, relative to the project root;
// Codex reads it in trusted projects, gantry in trusted folders.
const CodexProjectConfig = ".codex/config.toml"

// codexUserConfig is Codex's user config.toml ($CODEX_HOME, else ~/.codex), or "".
func codexUserConfig() string {
	if dir := CodexDir(); dir != "" {
		return filepath.Join(dir, "config.toml")
	}
	return ""
}

// codexServers reads the MCP servers of the Codex config.toml at path, sorted by name,
// with what of it gantry cannot take as sentences, and the servers it turns off
// (enabled = false) as skipped sentences. A missing file gives nothing; one that
// cannot be read is a problem, never an error: the file is Codex's.
func codexServers(path string) (servers []jsonServer, problems, skipped []string) {
	if path == "" {
		return nil, nil, nil
	}
	data, err := readJSONFile(path, maxFileSize)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil, nil
	}
	if err != nil {
		return nil, []string{err.Error()}, nil
	}
	var f codexConfigFile
	md, err := toml.Decode(string(data), &f)
	if err != nil {
		return nil, []string{fmt.Sprintf("%s is not a Codex config.toml gantry can read (%v), so its MCP servers are not started", path, err)}, nil
	}
	var unused []string
	for _, k := range md.Undecoded() {
		if len(k) == 3 && k[0] == "mcp_servers" {
			unused = append(unused, k.String())
		}
	}
	if len(unused) > 0 {
		sort.Strings(unused)
		problems = append(problems, fmt.Sprintf("%s: gantry does not use these keys of its MCP servers: %s", path, strings.Join(unused, ", ")))
	}
	names := make([]string, 0, len(f.MCPServers))
	for n := range f.MCPServers {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		c := f.MCPServers[n]
		if c.Enabled != nil && !*c.Enabled {
			skipped = append(skipped, fmt.Sprintf("%s (%s): turned off there (enabled = false)", n, path))
			continue
		}
		s := MCPServer{Command: c.Command, Args: c.Args, Env: c.Env, Cwd: c.Cwd, URL: c.URL, From: path}
		if c.URL != "" {
			s.Type = "http" // Codex's remote servers speak streamable HTTP
			for h, v := range c.HTTPHeaders {
				s.header(h, v)
			}
			for h, v := range c.EnvHTTPHeaders {
				s.header(h, "${"+v+"}")
			}
			if c.BearerTokenEnvVar != "" {
				s.header("Authorization", "Bearer ${"+c.BearerTokenEnvVar+"}")
			}
		}
		if t := math.Max(c.StartupTimeoutSec, c.ToolTimeoutSec); t > 0 {
			s.Timeout = int(math.Ceil(t))
		}
		if c.Command == "" && c.URL == "" {
			s.Problem = fmt.Sprintf("%s: the MCP server %q has neither a command nor a url, so it was not started.", path, n)
		}
		servers = append(servers, jsonServer{name: n, server: s})
	}
	return servers, problems, skipped
}

// header sets an HTTP header of the server.
func (s *MCPServer) header(name, value string) {
	if s.Headers == nil {
		s.Headers = map[string]string{}
	}
	s.Headers[name] = value
}
