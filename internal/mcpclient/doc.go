// Package mcpclient offers the tools of MCP servers to gantry's model: it connects to
// stdio and streamable-HTTP MCP servers, lists their tools, and wraps each one as a
// gantry tool named mcp__<server>__<tool> whose calls go to the server.
package mcpclient

import "time"

// Server is one MCP server to connect to: a command speaking MCP over its standard
// input and output when Command is set, a streamable-HTTP endpoint when URL is set.
type Server struct {
	// Name names the server in its tools' names and in failure sentences.
	Name string
	// Command, Args and Env start a stdio server; Env is added to gantry's own
	// environment (later duplicates win).
	Command string
	Args    []string
	Env     map[string]string
	// URL is the endpoint of a streamable-HTTP server; Headers go with every request.
	URL     string
	Headers map[string]string
	// Timeout, when set, bounds this server's start-up and each of its calls instead
	// of Options' timeouts.
	Timeout time.Duration
	// Level is the level of the server's tools: read, write or exec (the default,
	// also for "").
	Level string
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
