package app

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"slices"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/gantry-dev/gantry/internal/config"
	"github.com/gantry-dev/gantry/internal/contain"
	"github.com/gantry-dev/gantry/internal/mcpclient"
	"github.com/gantry-dev/gantry/internal/resource"
	"github.com/gantry-dev/gantry/internal/tool"
)

// MCPServer is an MCP server whose tools a session offers: a command to start
// (stdio) or a URL (streamable HTTP, or SSE).
type MCPServer = mcpclient.Server

// MCPState is where an MCP server of the session stands.
type MCPState string

// The states of an MCP server.
const (
	MCPStarting  MCPState = "starting"
	MCPConnected MCPState = "connected"
	MCPFailed    MCPState = "failed"
)

// MCPServerStatus is what a face shows of one MCP server of the session (the terminal's
// /mcp).
type MCPServerStatus struct {
	Name string
	// From says where the server is defined: "file:line", or "the ACP client".
	From string
	// Transport is stdio, http or sse; Target the command line or the url, as written
	// (before ${VAR} expansion, so that no secret is shown).
	Transport, Target string
	State             MCPState
	// Reason says why a failed server failed: one sentence naming it.
	Reason string
	// Tools are the names the model knows a connected server's tools by.
	Tools []string
	// Prompts are a connected server's prompts, run as /mcp__server__prompt
	// (commands.go); set is its connection.
	Prompts []mcpclient.Prompt
	set     *mcpclient.Set
}

// mcpEntry is a server a session is to connect to: the server, what a face shows of
// it, and why it cannot be started, when it cannot.
type mcpEntry struct {
	server  MCPServer
	status  MCPServerStatus
	problem string
}

// fromACP is where the servers an ACP client gives are said to be defined.
const fromACP = "the ACP client"

// mcpEntries lists the configured servers, by name, then extra (an ACP client's); a
// server of extra replaces a configured one of the same name. The configured ones
// have ${VAR} expanded (a variable not set makes the server's problem), and stdio ones
// are told the project folder in CLAUDE_PROJECT_DIR, as Claude Code tells it, which
// ${CLAUDE_PROJECT_DIR} also means when it is not set.
func mcpEntries(cfg *config.Config, extra []MCPServer, lookup func(string) (string, bool)) []mcpEntry {
	given := map[string]bool{}
	for _, s := range extra {
		given[s.Name] = true
	}
	names := make([]string, 0, len(cfg.MCPServers))
	for name := range cfg.MCPServers {
		if !given[name] {
			names = append(names, name)
		}
	}
	sort.Strings(names)
	vars := func(name string) (string, bool) {
		if v, ok := lookup(name); ok {
			return v, true
		}
		if name == "CLAUDE_PROJECT_DIR" {
			return cfg.Root(), true
		}
		return "", false
	}
	out := make([]mcpEntry, 0, len(names)+len(extra))
	for _, name := range names {
		c := cfg.MCPServers[name]
		e := mcpEntry{status: MCPServerStatus{Name: name, From: c.From, Target: mcpTarget(c.Command, c.Args, c.URL)}}
		e.problem = c.Problem
		if e.problem == "" {
			x, err := config.ExpandMCP(c, vars)
			if err != nil {
				e.problem = fmt.Sprintf("%s: MCP server %q %v, so it was not started.", c.From, name, err)
			}
			c = x
		}
		e.server = MCPServer{Name: name, Type: c.Type, Command: c.Command, Args: c.Args, Env: c.Env, Cwd: c.Cwd, URL: c.URL,
			Headers: c.Headers, Timeout: time.Duration(c.Timeout) * time.Second, Level: c.Level, Defer: c.Defer}
		if e.server.Transport() == mcpclient.TypeStdio {
			if _, ok := e.server.Env["CLAUDE_PROJECT_DIR"]; !ok {
				env := maps.Clone(e.server.Env)
				if env == nil {
					env = map[string]string{}
				}
				env["CLAUDE_PROJECT_DIR"] = cfg.Root()
				e.server.Env = env
			}
		}
		e.status.Transport = e.server.Transport()
		out = append(out, e)
	}
	for _, s := range extra {
		out = append(out, mcpEntry{server: s, status: MCPServerStatus{Name: s.Name, From: fromACP, Transport: s.Transport(),
			Target: mcpTarget(s.Command, s.Args, s.URL)}})
	}
	return out
}

// mcpTarget is a server's command line, or its url.
func mcpTarget(command string, args []string, url string) string {
	if command == "" {
		return url
	}
	return strings.Join(append([]string{command}, args...), " ")
}

// mcpKey names a server's connection in the resource pool: the same server, started
// in the same folder with the same roots, is one connection for every session of the
// process, as long as it runs under the same rules (the policy's ID).
func mcpKey(s MCPServer, dir string, roots []string, pol *contain.Policy) resource.Key {
	def, _ := json.Marshal(struct {
		S     MCPServer
		Dir   string
		Roots []string
	}{s, dir, roots})
	k := resource.Key{Kind: "mcp:" + s.Name, Of: string(def)}
	if pol != nil {
		k.Policy = pol.ID
	}
	return k
}

// startFailure is a server that could not be used, as a sentence for the person.
type startFailure string

func (f startFailure) Error() string { return string(f) }

// mcpBoard holds the states of a session's MCP servers, for the faces to read while
// they connect.
type mcpBoard struct {
	mu   sync.Mutex
	list []MCPServerStatus
}

func (b *mcpBoard) set(list []MCPServerStatus) {
	b.mu.Lock()
	b.list = list
	b.mu.Unlock()
}

func (b *mcpBoard) update(i int, f func(*MCPServerStatus)) {
	b.mu.Lock()
	f(&b.list[i])
	b.mu.Unlock()
}

// all returns a copy of the states.
func (b *mcpBoard) all() []MCPServerStatus {
	b.mu.Lock()
	defer b.mu.Unlock()
	out := slices.Clone(b.list)
	for i := range out {
		out[i].Tools = slices.Clone(out[i].Tools)
	}
	return out
}

// connectMCP connects the servers of entries, in parallel, through the pool (a server
// another session of the process connected is shared), telling them of roots, and
// registers their tools in reg. board, when not nil, follows their states. It returns
// one sentence per server that failed; failing is never fatal. Stdio servers run under
// pol, the session's policy.
func connectMCP(ctx context.Context, pool *resource.Pool, reg *tool.Registry, entries []mcpEntry, dir string, roots []string, board *mcpBoard, pol *contain.Policy) []string {
	if board == nil {
		board = &mcpBoard{}
	}
	list := make([]MCPServerStatus, len(entries))
	for i, e := range entries {
		list[i] = e.status
		list[i].State = MCPStarting
		if e.problem != "" {
			list[i].State, list[i].Reason = MCPFailed, e.problem
		}
	}
	board.set(list)
	if len(entries) == 0 {
		return nil
	}
	sets := make([]*mcpclient.Set, len(entries))
	failures := make([]string, len(entries))
	prompts, promptProblems := make([][]mcpclient.Prompt, len(entries)), make([][]string, len(entries))
	var wg sync.WaitGroup
	for i, e := range entries {
		if e.problem != "" {
			failures[i] = e.problem
			continue
		}
		s := e.server
		wg.Go(func() {
			set, err := resource.Get(ctx, pool, mcpKey(s, dir, roots, pol), func(ctx context.Context) (*mcpclient.Set, error) {
				set := mcpclient.Connect(ctx, []MCPServer{s}, mcpclient.Options{Dir: dir, Roots: roots, Policy: pol})
				if f := set.Failures(); len(f) > 0 {
					_ = set.Close(ctx)
					return nil, startFailure(strings.Join(f, " "))
				}
				return set, nil
			})
			var sf startFailure
			switch {
			case errors.As(err, &sf):
				failures[i] = string(sf)
			case err != nil:
				failures[i] = fmt.Sprintf("MCP server %q was not started: %v.", s.Name, err)
			default:
				sets[i] = set
				prompts[i], promptProblems[i] = set.Prompts(ctx)
			}
			if e.status.From != fromACP && e.status.From != "" && failures[i] != "" && !strings.HasPrefix(failures[i], e.status.From) {
				failures[i] = e.status.From + ": " + failures[i]
			}
			board.update(i, func(st *MCPServerStatus) {
				if failures[i] != "" {
					st.State, st.Reason = MCPFailed, failures[i]
					return
				}
				st.State = MCPConnected
				for _, t := range set.Tools() {
					st.Tools = append(st.Tools, t.Name())
				}
				st.set, st.Prompts = set, prompts[i]
			})
		})
	}
	wg.Wait()
	var out []string
	for i := range entries {
		out = append(out, promptProblems[i]...)
		if failures[i] != "" {
			out = append(out, failures[i])
			continue
		}
		for _, t := range sets[i].Tools() {
			reg.Add(t) // the pool, not the session, closes the connection
		}
	}
	return out
}

// connectMCP connects the session's servers (see the function of that name); the
// project folder is their root.
func (a *App) connectMCP(ctx context.Context) []string {
	if a.opts.ToolServer {
		return nil // its tools are gantry's own: it serves no one else's
	}
	notices := slices.Clone(a.cfg.MCPProblems)
	entries := mcpEntries(a.cfg, a.opts.MCPServers, a.cfg.Lookup)
	return append(notices, connectMCP(ctx, a.pool, a.reg, entries, a.opts.Cwd, []string{a.cfg.Root()}, &a.mcp, a.policy)...)
}

// MCPServers returns the session's MCP servers, in the order they are connected in,
// each with its state now: starting, connected (with its tools) or failed (with why).
func (a *App) MCPServers() []MCPServerStatus { return a.mcp.all() }
