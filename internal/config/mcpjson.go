package config

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
)

// MCPTypes are the transports an MCP server's type may name, as Claude Code names
// them: stdio, http (streamable HTTP) and sse (the legacy HTTP+SSE transport).
var MCPTypes = []string{"stdio", "http", "sse"}

// MCPJSONFile is the project's MCP file, Claude Code's, at the project root.
const MCPJSONFile = ".mcp.json"

// maxClaudeJSONSize bounds ~/.claude.json, which holds Claude Code's state besides its
// MCP servers and grows with it.
const maxClaudeJSONSize = 64 << 20

// ClaudeJSON returns the file Claude Code keeps its user's MCP servers in (with its
// state): $CLAUDE_CONFIG_DIR/.claude.json when that is set, else ~/.claude.json.
func ClaudeJSON() string {
	if d := os.Getenv("CLAUDE_CONFIG_DIR"); d != "" {
		return filepath.Join(expandHome(d), ".claude.json")
	}
	home, err := os.UserHomeDir()
	if err != nil || home == "" {
		return ""
	}
	return filepath.Join(home, ".claude.json")
}

// loadClaudeMCP adds the MCP servers Claude Code's files define for a session in cwd,
// over those of the other tools' files (loadOtherMCP), each replacing an earlier one
// of the same name, in Claude Code's order of precedence, lowest first: the user's
// (the top-level mcpServers of ~/.claude.json), the project's (.mcp.json at the
// project root), then the user's for this project (mcpServers of the projects entry
// of ~/.claude.json for the project root, then for cwd). gantry's own files are merged after them and win. These files are Claude
// Code's: what gantry cannot read in them is a notice (MCPProblems, or the server's
// Problem), never an error.
func (c *Config) loadClaudeMCP(cwd string) {
	cwd = absClean(cwd)
	var user, local []jsonServer
	if path := ClaudeJSON(); path != "" {
		data, err := readJSONFile(path, maxClaudeJSONSize)
		switch {
		case errors.Is(err, fs.ErrNotExist):
		case err != nil:
			c.MCPProblems = append(c.MCPProblems, err.Error())
		default:
			var projects []string // the projects entries that apply, lowest first
			for _, p := range []string{c.root, cwd} {
				if len(projects) == 0 || projects[len(projects)-1] != p {
					projects = append(projects, p)
				}
			}
			var problem string
			user, local, problem = claudeJSONServers(path, data, projects)
			if problem != "" {
				c.MCPProblems = append(c.MCPProblems, problem)
			}
		}
	}
	var project []jsonServer
	path := filepath.Join(c.root, MCPJSONFile)
	data, err := readJSONFile(path, maxFileSize)
	switch {
	case errors.Is(err, fs.ErrNotExist):
	case err != nil:
		c.MCPProblems = append(c.MCPProblems, err.Error())
	default:
		var problem string
		project, problem = mcpJSONServers(path, data)
		if problem != "" {
			c.MCPProblems = append(c.MCPProblems, problem)
		}
	}
	c.loadOtherMCP()
	for i, list := range [][]jsonServer{user, project, local} {
		for _, s := range list {
			if i == 1 && !c.mcpChosen.chosen(c, s) {
				continue
			}
			if i == 1 && c.hold && !c.mcpApproved.all && !slices.Contains(c.mcpApproved.names, s.name) {
				c.holdServer(s.name, s.server)
				continue
			}
			c.addMCPServer(s.name, s.server)
		}
	}
}

// addMCPServer sets the server named name, replacing one of that name, with a
// relative cwd made absolute against the project root.
func (c *Config) addMCPServer(name string, s MCPServer) {
	if s.Cwd != "" {
		s.Cwd = expandHome(s.Cwd)
		if !filepath.IsAbs(s.Cwd) {
			s.Cwd = filepath.Join(c.root, s.Cwd)
		}
	}
	if c.MCPServers == nil {
		c.MCPServers = map[string]MCPServer{}
	}
	c.MCPServers[name] = s
}

// readJSONFile reads the file at path, of at most limit bytes; an error names it.
func readJSONFile(path string, limit int64) ([]byte, error) {
	f, err := os.Open(path)
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return nil, err
		}
		return nil, &FileError{Path: path, Msg: fmt.Sprintf("cannot be read, so its MCP servers are not started: %v", errors.Unwrap(err))}
	}
	defer f.Close()
	if fi, err := f.Stat(); err == nil && fi.IsDir() {
		return nil, &FileError{Path: path, Msg: "is a folder, not a JSON file, so it gives no MCP servers"}
	}
	data, err := io.ReadAll(io.LimitReader(f, limit+1))
	if err != nil {
		return nil, &FileError{Path: path, Msg: fmt.Sprintf("cannot be read, so its MCP servers are not started: %v", err)}
	}
	if int64(len(data)) > limit {
		return nil, &FileError{Path: path, Msg: fmt.Sprintf("is larger than %d MiB, so its MCP servers are not read", limit>>20)}
	}
	return data, nil
}

// jsonServer is one entry of a JSON mcpServers object.
type jsonServer struct {
	name   string
	server MCPServer
}

// jsonEntry is the shape of a Claude Code MCP server entry; other keys (oauth,
// headersHelper, …) are Claude Code's and left alone.
type jsonEntry struct {
	Type    string            `json:"type"`
	Command string            `json:"command"`
	Args    []string          `json:"args"`
	Env     map[string]string `json:"env"`
	Cwd     string            `json:"cwd"`
	URL     string            `json:"url"`
	Headers map[string]string `json:"headers"`
	// Link is a key some files give beside (or instead of) url: where the server is
	// described or hosted. gantry does not connect to it; it is named when the entry
	// has nothing else.
	Link string `json:"link"`
}

// mcpJSONServers reads the mcpServers of a .mcp.json. The problem, when not empty,
// says why the file gives no servers (or fewer), naming it and the line.
func mcpJSONServers(path string, data []byte) ([]jsonServer, string) {
	list := "mcpServers"
	switch shape := mcpJSONShape(data); shape {
	case "servers":
		list = shape
	case "top":
		// The servers at the top level: read as the mcpServers of an object around
		// them, on the same first line, so that line numbers still hold.
		data = append(append([]byte(`{"mcpServers":`), data...), '}')
	}
	r := jsonReader{path: path, data: data, dec: json.NewDecoder(bytes.NewReader(data))}
	var out []jsonServer
	err := r.object("the file", func(key string) error {
		if key != list {
			return r.skip()
		}
		var err error
		out, err = r.servers(list)
		return err
	})
	if err != nil {
		return out, err.Error()
	}
	return out, ""
}

// mcpJSONShape says where the servers of a .mcp.json are: "mcpServers" (Claude
// Code's shape, and the answer for a file that cannot be read, so that its errors
// are said), "servers" (VS Code's mcp.json, when there is no mcpServers), or "top"
// (the servers at the top level: every entry an object with a command or a url).
func mcpJSONShape(data []byte) string {
	var top map[string]json.RawMessage
	if json.Unmarshal(data, &top) != nil || len(top) == 0 {
		return "mcpServers"
	}
	if _, ok := top["mcpServers"]; ok {
		return "mcpServers"
	}
	if _, ok := top["servers"]; ok {
		return "servers"
	}
	for _, v := range top {
		var e struct {
			Command string `json:"command"`
			URL     string `json:"url"`
		}
		if json.Unmarshal(v, &e) != nil || e.Command == "" && e.URL == "" {
			return "mcpServers"
		}
	}
	return "top"
}

// claudeJSONServers reads the user's servers of a ~/.claude.json (its top-level
// mcpServers) and those of its projects entries for the folders of projects, in their
// order.
func claudeJSONServers(path string, data []byte, projects []string) (user, local []jsonServer, problem string) {
	r := jsonReader{path: path, data: data, dec: json.NewDecoder(bytes.NewReader(data))}
	byProject := map[string][]jsonServer{}
	err := r.object("the file", func(key string) error {
		switch key {
		case "mcpServers":
			var err error
			user, err = r.servers("mcpServers")
			return err
		case "projects":
			return r.object("projects", func(dir string) error {
				if !containsPath(projects, dir) {
					return r.skip()
				}
				at := fmt.Sprintf("projects[%q]", dir)
				return r.object(at, func(key string) error {
					if key != "mcpServers" {
						return r.skip()
					}
					list, err := r.servers(at + ".mcpServers")
					byProject[filepath.Clean(dir)] = list
					return err
				})
			})
		}
		return r.skip()
	})
	for _, p := range projects {
		local = append(local, byProject[p]...)
	}
	if err != nil {
		return user, local, err.Error()
	}
	return user, local, ""
}

func containsPath(dirs []string, dir string) bool {
	if !filepath.IsAbs(dir) {
		return false
	}
	for _, d := range dirs {
		if d == filepath.Clean(dir) {
			return true
		}
	}
	return false
}

// jsonReader walks a JSON file token by token, so that what it reads can be said
// with its line, and what it does not need is skipped.
type jsonReader struct {
	path string
	data []byte
	dec  *json.Decoder
}

// line is the line of the byte at offset.
func (r *jsonReader) line(offset int64) int {
	offset = min(max(offset, 0), int64(len(r.data)))
	return 1 + bytes.Count(r.data[:offset], []byte("\n"))
}

// fail is a FileError at offset.
func (r *jsonReader) fail(offset int64, msg string, args ...any) error {
	return &FileError{Path: r.path, Line: r.line(offset), Msg: fmt.Sprintf(msg, args...)}
}

// syntax turns an error of the decoder into a FileError with its line.
func (r *jsonReader) syntax(err error) error {
	var se *json.SyntaxError
	switch {
	case errors.As(err, &se):
		return r.fail(se.Offset, "is not valid JSON (%s), so its MCP servers are not started", se.Error())
	case errors.Is(err, io.EOF), errors.Is(err, io.ErrUnexpectedEOF):
		return r.fail(int64(len(r.data)), "ends too soon to be valid JSON, so its MCP servers are not started")
	}
	return r.fail(r.dec.InputOffset(), "cannot be read as JSON (%v), so its MCP servers are not started", err)
}

// object reads an object, calling each for every key; each must read the key's value.
// what names the object in a sentence.
func (r *jsonReader) object(what string, each func(key string) error) error {
	at := r.dec.InputOffset()
	tok, err := r.dec.Token()
	if err != nil {
		return r.syntax(err)
	}
	if d, ok := tok.(json.Delim); !ok || d != '{' {
		return r.fail(at, "%s must be a JSON object, so its MCP servers are not started", what)
	}
	for r.dec.More() {
		tok, err := r.dec.Token()
		if err != nil {
			return r.syntax(err)
		}
		if err := each(tok.(string)); err != nil {
			return err
		}
	}
	if _, err := r.dec.Token(); err != nil {
		return r.syntax(err)
	}
	return nil
}

// skip reads a value and throws it away.
func (r *jsonReader) skip() error {
	var v json.RawMessage
	if err := r.dec.Decode(&v); err != nil {
		return r.syntax(err)
	}
	return nil
}

// servers reads an mcpServers object (named what in a sentence): an entry that is
// not one gantry can use is kept with its Problem.
func (r *jsonReader) servers(what string) ([]jsonServer, error) {
	var out []jsonServer
	err := r.object(what, func(name string) error {
		// The line of the entry is the line its value begins on.
		var raw json.RawMessage
		if err := r.dec.Decode(&raw); err != nil {
			return r.syntax(err)
		}
		start := r.dec.InputOffset() - int64(len(raw))
		from := fmt.Sprintf("%s:%d", r.path, r.line(start))
		s := MCPServer{From: from}
		var e jsonEntry
		if err := json.Unmarshal(raw, &e); err != nil {
			s.Problem = fmt.Sprintf("%s: MCP server %q %s, so it was not started.", from, name, entryProblem(raw, err))
		} else {
			if e.Type == "streamable-http" {
				e.Type = "http" // another name of the same transport, which some files use
			}
			s.Type, s.Command, s.Args, s.Env, s.Cwd, s.URL, s.Headers = e.Type, e.Command, e.Args, e.Env, e.Cwd, e.URL, e.Headers
			if msg := mcpShape(s); msg != "" {
				if e.Link != "" && s.Command == "" && s.URL == "" {
					msg += fmt.Sprintf("; its link (%s) is not read as one (rename the key url if that is the server's address)", e.Link)
				}
				s.Problem = fmt.Sprintf("%s: MCP server %q %s, so it was not started.", from, name, msg)
			}
		}
		out = append(out, jsonServer{name, s})
		return nil
	})
	return out, err
}

// entryProblem says what is wrong in an entry the decoder refused.
func entryProblem(raw json.RawMessage, err error) string {
	if k := bytes.TrimSpace(raw); len(k) > 0 && k[0] != '{' {
		return "is not a JSON object"
	}
	var te *json.UnmarshalTypeError
	if errors.As(err, &te) && te.Field != "" {
		field, _, _ := strings.Cut(te.Field, ".")
		if f, ok := reflect.TypeFor[jsonEntry]().FieldByNameFunc(func(n string) bool { return strings.EqualFold(n, field) }); ok &&
			f.Type.Kind() != reflect.String && te.Type.Kind() == reflect.String {
			// an item of a list or a value of an object
			return fmt.Sprintf("has %s in %q, where gantry needs strings", jsonKindName(te.Value), field)
		}
		return fmt.Sprintf("has %q as %s, where gantry needs %s", te.Field, jsonKindName(te.Value), goKindName(te.Type))
	}
	return fmt.Sprintf("cannot be read (%v)", err)
}

func jsonKindName(v string) string {
	switch v {
	case "array", "object":
		return "an " + v
	case "bool":
		return "true or false"
	case "":
		return "a value of another kind"
	}
	return "a " + v
}

func goKindName(t reflect.Type) string {
	switch t.Kind() {
	case reflect.String:
		return "a string"
	case reflect.Slice:
		return "a list of strings"
	case reflect.Map:
		return "an object of strings"
	}
	return "another kind of value"
}

// mcpShape says what keeps the server s from being started, or "": a type gantry
// does not connect to, a command and a url together, or what its type needs missing.
func mcpShape(s MCPServer) string {
	switch {
	case s.Type != "" && !slices.Contains(MCPTypes, s.Type):
		return fmt.Sprintf("has type %q; gantry connects to %s servers", s.Type, strings.Join(MCPTypes, ", "))
	case s.Command == "" && s.URL == "":
		return "needs a command (a stdio server) or a url (an HTTP server)"
	case s.Command != "" && s.URL != "":
		return "has both a command and a url; give one"
	case s.Type == "stdio" && s.Command == "":
		return "is of type stdio and needs a command"
	case (s.Type == "http" || s.Type == "sse") && s.URL == "":
		return fmt.Sprintf("is of type %s and needs a url", s.Type)
	}
	return ""
}
