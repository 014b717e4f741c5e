package app

import (
	"context"
	"encoding/json"
	"errors"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/gantry-dev/gantry/internal/config"
	"github.com/gantry-dev/gantry/internal/mcpclient"
	"github.com/gantry-dev/gantry/internal/resource"
	"github.com/gantry-dev/gantry/internal/tool"
)

// MCPServer is an MCP server whose tools a session offers: a command to start
// (stdio) or a URL (streamable HTTP).
type MCPServer = mcpclient.Server

// mcpServers lists the configured servers, by name, then extra; a server of extra
// replaces a configured one of the same name.
func mcpServers(cfg *config.Config, extra []MCPServer) []MCPServer {
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
	out := make([]MCPServer, 0, len(names)+len(extra))
	for _, name := range names {
		c := cfg.MCPServers[name]
		out = append(out, MCPServer{Name: name, Command: c.Command, Args: c.Args, Env: c.Env, URL: c.URL,
			Headers: c.Headers, Timeout: time.Duration(c.Timeout) * time.Second, Level: c.Level})
	}
	return append(out, extra...)
}

// mcpKey names a server's connection in the resource pool: the same server, started
// in the same folder, is one connection for every session of the process.
func mcpKey(s MCPServer, dir string) resource.Key {
	def, _ := json.Marshal(struct {
		S   MCPServer
		Dir string
	}{s, dir})
	return resource.Key{Kind: "mcp:" + s.Name, Of: string(def)}
}

// startFailure is a server that could not be used, as a sentence for the person.
type startFailure string

func (f startFailure) Error() string { return string(f) }

// connectMCP connects the servers, in parallel, through the pool (a server another
// session of the process connected is shared), and registers their tools in reg. It
// returns one sentence per server that failed; failing is never fatal.
func connectMCP(ctx context.Context, pool *resource.Pool, reg *tool.Registry, servers []MCPServer, dir string) []string {
	if len(servers) == 0 {
		return nil
	}
	sets := make([]*mcpclient.Set, len(servers))
	failures := make([]string, len(servers))
	var wg sync.WaitGroup
	for i, s := range servers {
		wg.Go(func() {
			set, err := resource.Get(ctx, pool, mcpKey(s, dir), func(ctx context.Context) (*mcpclient.Set, error) {
				set := mcpclient.Connect(ctx, []MCPServer{s}, mcpclient.Options{Dir: dir})
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
				failures[i] = "MCP server " + s.Name + " was not started: " + err.Error() + "."
			default:
				sets[i] = set
			}
		})
	}
	wg.Wait()
	var out []string
	for i := range servers {
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

// connectMCP connects the session's servers (see the function of that name).
func (a *App) connectMCP(ctx context.Context, servers []MCPServer) []string {
	return connectMCP(ctx, a.pool, a.reg, servers, a.opts.Cwd)
}
