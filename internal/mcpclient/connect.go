package mcpclient

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/gantry-dev/gantry/internal/tool"
)

// maxTools bounds the tools taken from one server, against a listing that never ends.
const maxTools = 1000

// Connect connects to every server at once, each within Options.StartTimeout, and lists
// their tools. A server that cannot be started, connected to or listed is left out and
// reported by Set.Failures; Connect itself never fails. Close the Set when done.
func Connect(ctx context.Context, servers []Server, opts Options) *Set {
	closing, cancel := context.WithCancel(context.Background())
	set := &Set{closing: closing, cancel: cancel, callTimeout: opts.callTimeout()}

	type outcome struct {
		conn    *conn
		tools   []*mcp.Tool
		failure string
	}
	outcomes := make([]outcome, len(servers))
	seen := map[string]bool{}
	var wg sync.WaitGroup
	for i, s := range servers {
		if msg := checkServer(s, seen); msg != "" {
			outcomes[i].failure = msg
			continue
		}
		seen[s.Name] = true
		wg.Go(func() {
			c, tools, failure := connectOne(ctx, s, opts)
			outcomes[i] = outcome{c, tools, failure}
		})
	}
	wg.Wait()

	var n namer
	for i, o := range outcomes {
		if o.failure != "" {
			set.failures = append(set.failures, o.failure)
			continue
		}
		set.conns = append(set.conns, o.conn)
		for _, t := range o.tools {
			mt := newMCPTool(set, o.conn, n.name(servers[i].Name, t.Name), t)
			mt.level, _ = tool.ParseLevel(servers[i].Level) // checked by checkServer
			mt.timeout = servers[i].Timeout
			mt.server, mt.deferral = servers[i].Name, servers[i].Defer
			set.tools = append(set.tools, mt)
		}
	}
	return set
}

// checkServer returns a sentence saying why s cannot be connected to, or "".
func checkServer(s Server, seen map[string]bool) string {
	switch {
	case strings.TrimSpace(s.Name) == "":
		return "An MCP server has no name, so it was not started."
	case seen[s.Name]:
		return fmt.Sprintf("MCP server %q is given twice; only the first was started.", s.Name)
	case s.Type != "" && s.Type != TypeStdio && s.Type != TypeHTTP && s.Type != TypeSSE:
		return fmt.Sprintf("MCP server %q has type %q; gantry connects to stdio, http and sse servers, so it was not started.", s.Name, s.Type)
	case s.Command == "" && s.URL == "":
		return fmt.Sprintf("MCP server %q has neither a command nor a url, so it was not started.", s.Name)
	case s.Command != "" && s.URL != "":
		return fmt.Sprintf("MCP server %q has both a command and a url; give one.", s.Name)
	case s.Transport() == TypeStdio && s.Command == "":
		return fmt.Sprintf("MCP server %q is a stdio server without a command, so it was not started.", s.Name)
	case s.Transport() != TypeStdio && s.URL == "":
		return fmt.Sprintf("MCP server %q is an %s server without a url, so it was not started.", s.Name, s.Transport())
	}
	if s.Level != "" {
		if _, err := tool.ParseLevel(s.Level); err != nil {
			return fmt.Sprintf("MCP server %q: %v, so it was not started.", s.Name, err)
		}
	}
	return ""
}

// connectOne starts or reaches s, initializes a session and lists its tools, all within
// the start-up timeout. On failure it cleans up and returns a sentence naming s and why.
func connectOne(ctx context.Context, s Server, opts Options) (*conn, []*mcp.Tool, string) {
	c := &conn{name: s.Name}
	var transport mcp.Transport
	switch s.Transport() {
	case TypeStdio:
		t, proc, err := newStdioTransport(s, opts.Dir, opts.Policy)
		if err != nil {
			return nil, nil, fmt.Sprintf("MCP server %q was not started: %v.", s.Name, err)
		}
		transport, c.proc = t, proc
	case TypeSSE:
		transport, c.http = newSSETransport(s)
	default:
		transport, c.http = newHTTPTransport(s)
	}

	timeout := opts.startTimeout()
	if s.Timeout > 0 {
		timeout = s.Timeout
	}
	startCtx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	// A server that hangs is killed when start-up ends, which also unblocks the SDK.
	killed := make(chan struct{})
	stopKill := context.AfterFunc(startCtx, func() {
		defer close(killed)
		if c.proc != nil {
			c.proc.kill()
		}
	})
	tools, err := c.start(startCtx, transport, opts.Roots)
	if !stopKill() {
		<-killed
		if err == nil {
			err = startCtx.Err()
		}
	}
	if err == nil {
		return c, tools, ""
	}
	c.close()

	var why string
	switch {
	case ctx.Err() != nil:
		why = "was not started: cancelled"
	case errors.Is(startCtx.Err(), context.DeadlineExceeded) && c.proc != nil:
		why = "did not start within " + seconds(timeout)
	case errors.Is(startCtx.Err(), context.DeadlineExceeded):
		why = "did not answer within " + seconds(timeout)
	default:
		why = strings.TrimSuffix(err.Error(), ".")
	}
	msg := fmt.Sprintf("MCP server %q %s", s.Name, why)
	if w := c.lastWords(); w != "" {
		msg += fmt.Sprintf("; its last words on stderr: %q", w)
	}
	return nil, nil, msg + "."
}

// start connects c's session over transport, telling the server of roots, and lists
// the server's tools, following the listing's pages.
func (c *conn) start(ctx context.Context, transport mcp.Transport, roots []string) ([]*mcp.Tool, error) {
	cs, err := newClient(roots).Connect(ctx, transport, nil)
	switch {
	case err != nil && c.proc == nil:
		return nil, fmt.Errorf("could not be reached: %w", err)
	case err != nil:
		return nil, fmt.Errorf("failed to start: %w", err)
	}
	c.session = cs
	if caps := cs.InitializeResult().Capabilities; caps == nil || caps.Tools == nil {
		return nil, nil // a server without tools: connected, with nothing to offer
	}
	var tools []*mcp.Tool
	for t, err := range cs.Tools(ctx, nil) {
		if err != nil {
			return nil, fmt.Errorf("failed to list its tools: %w", err)
		}
		if t != nil && t.Name != "" {
			tools = append(tools, t)
		}
		if len(tools) > maxTools {
			return nil, fmt.Errorf("lists more than %d tools", maxTools)
		}
	}
	return tools, nil
}

// seconds writes d for a sentence: "30s", "1.5s", "200ms".
func seconds(d time.Duration) string {
	if d >= time.Second && d%time.Second == 0 {
		return fmt.Sprintf("%ds", d/time.Second)
	}
	return d.String()
}
