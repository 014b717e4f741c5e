package config

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"strings"
	"sync"
)

// The project files of opencode and Crush that define MCP servers, relative to the
// project root, in the order read (a later one replaces a server of the same name):
// opencode's opencode.json(c), also in .opencode/; Crush's crush.json, then
// .crush.json, which Crush ranks above it.
var (
	OpencodeProjectFiles = []string{"opencode.json", "opencode.jsonc", ".opencode/opencode.json", ".opencode/opencode.jsonc"}
	CrushProjectFiles    = []string{"crush.json", ".crush.json"}
)

// xdgConfigHome is $XDG_CONFIG_HOME when absolute, else ~/.config, or "".
func xdgConfigHome() string {
	if d := os.Getenv("XDG_CONFIG_HOME"); d != "" && filepath.IsAbs(d) {
		return d
	}
	if home, err := os.UserHomeDir(); err == nil && home != "" {
		return filepath.Join(home, ".config")
	}
	return ""
}

// opencodeUserFiles are opencode's user config files, or none without a home.
func opencodeUserFiles() []string {
	d := xdgConfigHome()
	if d == "" {
		return nil
	}
	return []string{filepath.Join(d, "opencode", "opencode.json"), filepath.Join(d, "opencode", "opencode.jsonc")}
}

// crushUserFiles is Crush's user config file, or none without a home.
func crushUserFiles() []string {
	d := xdgConfigHome()
	if d == "" {
		return nil
	}
	return []string{filepath.Join(d, "crush", "crush.json")}
}

// opencodeEntry is a server of opencode's "mcp" object: local (command as a list,
// environment) or remote (url, headers); enabled: false, or the newer disabled: true,
// turns it off; timeout is in milliseconds.
type opencodeEntry struct {
	Type        string            `json:"type"`
	Command     []string          `json:"command"`
	Environment map[string]string `json:"environment"`
	URL         string            `json:"url"`
	Headers     map[string]string `json:"headers"`
	Enabled     *bool             `json:"enabled"`
	Disabled    bool              `json:"disabled"`
	Timeout     int               `json:"timeout"`
}

// crushEntry is a server of Crush's "mcp" object: stdio (command, args, env), http or
// sse (url, headers); disabled turns it off; timeout is in seconds.
type crushEntry struct {
	Type     string            `json:"type"`
	Command  string            `json:"command"`
	Args     []string          `json:"args"`
	Env      map[string]string `json:"env"`
	URL      string            `json:"url"`
	Headers  map[string]string `json:"headers"`
	Disabled bool              `json:"disabled"`
	Timeout  int               `json:"timeout"`
}

// otherJSONServers reads the "mcp" object of an opencode (crush false) or Crush
// (crush true) config file at path, JSONC allowed: the servers by name, in the order
// written, what of the file gantry cannot take (problems), and the servers the file
// turns off (skipped). A missing file gives nothing; nothing is an error: the file is
// the other tool's.
func otherJSONServers(path string, crush bool) (servers []jsonServer, problems, skipped []string) {
	data, err := readJSONFile(path, maxFileSize)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil, nil
	}
	if err != nil {
		return nil, []string{err.Error()}, nil
	}
	data = stripJSONC(data)
	r := jsonReader{path: path, data: data, dec: json.NewDecoder(bytes.NewReader(data))}
	unused := map[string]bool{}
	entry := func(name string, raw json.RawMessage, from string) error {
		var s MCPServer
		var off bool
		var keys map[string]json.RawMessage
		err := json.Unmarshal(raw, &keys)
		if err == nil && crush {
			s, off, err = crushServer(raw, keys, unused)
		} else if err == nil {
			s, off, err = opencodeServer(raw, keys, unused)
		}
		s.From = from
		switch {
		case err != nil:
			s.Problem = fmt.Sprintf("%s: MCP server %q cannot be read (%v), so it was not started.", from, name, err)
		case off:
			skipped = append(skipped, fmt.Sprintf("%s (%s): turned off there", name, from))
			return nil
		default:
			if msg := mcpShape(s); msg != "" {
				s.Problem = fmt.Sprintf("%s: MCP server %q %s, so it was not started.", from, name, msg)
			} else if msg := commandSubstitution(s); msg != "" {
				s.Problem = fmt.Sprintf("%s: MCP server %q %s, so it was not started.", from, name, msg)
			}
		}
		servers = append(servers, jsonServer{name, s})
		return nil
	}
	err = r.object("the file", func(key string) error {
		if key != "mcp" {
			return r.skip()
		}
		return r.object("mcp", func(name string) error {
			var raw json.RawMessage
			if err := r.dec.Decode(&raw); err != nil {
				return r.syntax(err)
			}
			from := fmt.Sprintf("%s:%d", r.path, r.line(r.dec.InputOffset()-int64(len(raw))))
			if !crush && name == "servers" && isServerSet(raw) {
				// opencode's newer shape: the servers under mcp.servers.
				return r.readNested(raw, entry)
			}
			return entry(name, raw, from)
		})
	})
	if err != nil {
		problems = append(problems, err.Error())
	}
	if len(unused) > 0 {
		keys := make([]string, 0, len(unused))
		for k := range unused {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		problems = append(problems, fmt.Sprintf("%s: gantry does not use these keys of its MCP servers: %s", path, strings.Join(keys, ", ")))
	}
	return servers, problems, skipped
}

// isServerSet reports whether raw, the value of opencode's mcp.servers, is an object
// of servers rather than one server named "servers".
func isServerSet(raw json.RawMessage) bool {
	var e struct {
		Type    any `json:"type"`
		Command any `json:"command"`
		URL     any `json:"url"`
	}
	return json.Unmarshal(raw, &e) == nil && e.Type == nil && e.Command == nil && e.URL == nil
}

// readNested reads the object raw (the text at its own place in r.data) as servers,
// with their lines in the file.
func (r *jsonReader) readNested(raw json.RawMessage, entry func(name string, raw json.RawMessage, from string) error) error {
	base := r.dec.InputOffset() - int64(len(raw))
	inner := jsonReader{path: r.path, data: r.data, dec: json.NewDecoder(bytes.NewReader(raw))}
	return inner.object("mcp.servers", func(name string) error {
		var v json.RawMessage
		if err := inner.dec.Decode(&v); err != nil {
			return inner.syntax(err)
		}
		from := fmt.Sprintf("%s:%d", r.path, r.line(base+inner.dec.InputOffset()-int64(len(v))))
		return entry(name, v, from)
	})
}

// opencodeServer maps an opencode server entry: local is stdio, remote is streamable
// HTTP; {env:VAR} becomes ${VAR}. Keys gantry does not use are added to unused.
func opencodeServer(raw json.RawMessage, keys map[string]json.RawMessage, unused map[string]bool) (MCPServer, bool, error) {
	var e opencodeEntry
	if err := json.Unmarshal(raw, &e); err != nil {
		return MCPServer{}, false, err
	}
	noteUnused(keys, unused, "type", "command", "environment", "url", "headers", "enabled", "disabled", "timeout")
	s := MCPServer{Env: mapValues(e.Environment, opencodeVars), Headers: mapValues(e.Headers, opencodeVars), URL: opencodeVars(e.URL)}
	switch e.Type {
	case "local":
		s.Type = "stdio"
	case "remote":
		s.Type = "http"
	case "":
	default:
		s.Type = e.Type // said by mcpShape: opencode knows local and remote
	}
	if len(e.Command) > 0 {
		s.Command = opencodeVars(e.Command[0])
		for _, a := range e.Command[1:] {
			s.Args = append(s.Args, opencodeVars(a))
		}
	}
	if e.Timeout > 0 {
		s.Timeout = (e.Timeout + 999) / 1000
	}
	return s, e.Disabled || e.Enabled != nil && !*e.Enabled, nil
}

// crushServer maps a Crush server entry; $VAR becomes ${VAR}, as Crush expands it.
func crushServer(raw json.RawMessage, keys map[string]json.RawMessage, unused map[string]bool) (MCPServer, bool, error) {
	var e crushEntry
	if err := json.Unmarshal(raw, &e); err != nil {
		return MCPServer{}, false, err
	}
	noteUnused(keys, unused, "type", "command", "args", "env", "url", "headers", "disabled", "timeout")
	s := MCPServer{Type: e.Type, Command: shellVars(e.Command), Env: mapValues(e.Env, shellVars),
		URL: shellVars(e.URL), Headers: mapValues(e.Headers, shellVars), Timeout: e.Timeout}
	for _, a := range e.Args {
		s.Args = append(s.Args, shellVars(a))
	}
	return s, e.Disabled, nil
}

// noteUnused adds to unused the keys of an entry that are not among known.
func noteUnused(keys map[string]json.RawMessage, unused map[string]bool, known ...string) {
	for k := range keys {
		if !slices.Contains(known, k) {
			unused[k] = true
		}
	}
}

// mapValues is m with f applied to each value.
func mapValues(m map[string]string, f func(string) string) map[string]string {
	if m == nil {
		return nil
	}
	out := make(map[string]string, len(m))
	for k, v := range m {
		out[k] = f(v)
	}
	return out
}

var (
	opencodeVar = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`\{env:([A-Za-z_][A-Za-z0-9_]*)\}`) })
	shellVar    = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`\$([A-Za-z_][A-Za-z0-9_]*)`) })
)

// opencodeVars writes opencode's {env:VAR} as ${VAR}, which ExpandMCP expands.
func opencodeVars(s string) string { return opencodeVar().ReplaceAllString(s, "$${$1}") }

// shellVars writes Crush's $VAR as ${VAR}; ${VAR} is kept as it is.
func shellVars(s string) string { return shellVar().ReplaceAllString(s, "$${$1}") }

// commandSubstitution says, for a server whose values run a command to get their text
// ($(…), as Crush allows, or opencode's {file:…}), that gantry does not; else "".
func commandSubstitution(s MCPServer) string {
	vals := append([]string{s.Command, s.URL}, s.Args...)
	for _, v := range s.Env {
		vals = append(vals, v)
	}
	for _, v := range s.Headers {
		vals = append(vals, v)
	}
	for _, v := range vals {
		if strings.Contains(v, "$(") {
			return "runs a command in a value ($(…)), which gantry does not"
		}
		if strings.Contains(v, "{file:") {
			return "reads a file in a value ({file:…}), which gantry does not"
		}
	}
	return ""
}
