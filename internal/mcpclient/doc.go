// Package mcpclient offers the tools of MCP servers to gantry's model: it connects to
// stdio, streamable-HTTP and (legacy) SSE MCP servers, lists their tools, and wraps each
// one as a gantry tool named mcp__<server>__<tool> whose calls go to the server. The
// client announces the roots capability when it is given roots (the project folder),
// and answers the servers' roots/list with them.
package mcpclient

import (
	"time"

	"github.com/gantry-dev/gantry/internal/contain"
)

// Server is one MCP server to connect to: a command speaking MCP over its standard
// input and output when Command is set, an HTTP endpoint when URL is set.
type Server struct {
	// Name names the server in its tools' names and in failure sentences.
	Name string
	// Type is the transport: TypeStdio, TypeHTTP (streamable HTTP) or TypeSSE (the
	// legacy HTTP+SSE transport of the 2024-11-05 protocol). Empty: stdio when Command
	// is set, streamable HTTP when URL is.
	Type string
	// Command, Args and Env start a stdio server; Env is added to gantry's own
	// environment (later duplicates win). Cwd is its working folder: relative to
	// Options.Dir, which is also the default.
	Command string
	Args    []string
	Env     map[string]string
	Cwd     string
	// URL is the endpoint of an HTTP or SSE server; Headers go with every request.
	URL     string
	Headers map[string]string
	// Timeout, when set, bounds this server's start-up and each of its calls instead
	// of Options' timeouts.
	Timeout time.Duration
	// Level is the level of the server's tools: read, write or exec (the default,
	// also for "").
	Level string
	// Defer is whether the server's tools are deferred (tool.DeferAuto, "" too:
	// past the session's MCP budget; never; always).
	Defer string
}

// Options tunes Connect. The zero value holds the defaults.
type Options struct {
	// StartTimeout bounds each server's start-up: starting, the initialize handshake
	// and listing its tools. Zero means DefaultStartTimeout.
	StartTimeout time.Duration
	// CallTimeout bounds each tool call. Zero means DefaultCallTimeout.
	CallTimeout time.Duration
	// Dir is the working directory of stdio servers; empty means gantry's own.
	Dir string
	// Roots are the absolute folders the servers are told of (roots/list): the
	// project's. None: the client does not announce the roots capability.
	Roots []string
	// Policy is the session's, which stdio servers run under (nil: gantry's own).
	Policy *contain.Policy
}

// The transports of Server.Type.
const (
	TypeStdio = "stdio"
	TypeHTTP  = "http"
	TypeSSE   = "sse"
)

// Transport is the transport s uses: its Type, or the one its Command or URL implies
// ("" when it has neither).
func (s Server) Transport() string {
	switch {
	case s.Type != "":
		return s.Type
	case s.Command != "":
		return TypeStdio
	case s.URL != "":
		return TypeHTTP
	}
	return ""
}

// The defaults of Options.
const (
	DefaultStartTimeout = 30 * time.Second
	DefaultCallTimeout  = 120 * time.Second
)

func (o Options) startTimeout() time.Duration {
	if o.StartTimeout <= 0 {
		return DefaultStartTimeout
	}
	return o.StartTimeout
}

func (o Options) callTimeout() time.Duration {
	if o.CallTimeout <= 0 {
		return DefaultCallTimeout
	}
	return o.CallTimeout
}
