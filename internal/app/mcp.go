package app

import (
	"context"
	"sort"
	"time"

	"github.com/gantry-dev/gantry/internal/config"
	"github.com/gantry-dev/gantry/internal/face"
	"github.com/gantry-dev/gantry/internal/mcpclient"
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

// connectMCP starts the session's MCP servers and adds their tools to reg; a server
// that fails is a notice, not an error.
func (a *App) connectMCP(reg *tool.Registry, servers []MCPServer, cwd string, sink face.Sink) {
	if len(servers) == 0 {
		return
	}
	set := mcpclient.Connect(context.Background(), servers, mcpclient.Options{Dir: cwd})
	a.closer = append(a.closer, set.Close)
	for _, t := range set.Tools() {
		reg.Add(t)
	}
	if sink != nil {
		for _, f := range set.Failures() {
			sink(face.Notice{Text: f})
		}
	}
}
