package acp

import (
	sdk "github.com/coder/acp-go-sdk"

	"github.com/gantry-dev/gantry/internal/app"
)

// mcpServers converts the MCP servers a client gives with a session.
func mcpServers(servers []sdk.McpServer) []app.MCPServer {
	out := make([]app.MCPServer, 0, len(servers))
	for _, m := range servers {
		switch {
		case m.Stdio != nil:
			env := map[string]string{}
			for _, e := range m.Stdio.Env {
				env[e.Name] = e.Value
			}
			out = append(out, app.MCPServer{Name: m.Stdio.Name, Command: m.Stdio.Command, Args: m.Stdio.Args, Env: env})
		case m.Http != nil:
			headers := map[string]string{}
			for _, h := range m.Http.Headers {
				headers[h.Name] = h.Value
			}
			out = append(out, app.MCPServer{Name: m.Http.Name, URL: m.Http.Url, Headers: headers})
		}
	}
	return out
}
