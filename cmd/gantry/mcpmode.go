package main

import (
	"context"
	"errors"
	"fmt"
	"net"
	"os"
	"os/signal"
	"strings"
	"syscall"
	"time"

	"github.com/gantry-dev/gantry/internal/app"
	"github.com/gantry-dev/gantry/internal/ui/mcpserve"
	"github.com/gantry-dev/gantry/internal/version"
)

// mcpFlags are the flags of gantry mcp alone; the others are print mode's.
type mcpFlags struct {
	http, listen string
	tokenFile    string
	idle         time.Duration
}

// defaultIdle closes an HTTP session that sent nothing for this long.
const defaultIdle = 30 * time.Minute

// runMCP is `gantry mcp`: gantry's tools served to other programs' agents over MCP,
// on stdin/stdout, or over streamable HTTP with --http/--listen. Logs go to stderr.
func runMCP(args []string) int {
	m, rest, err := parseMCPFlags(args)
	if err == nil {
		err = checkMCPAddress(m)
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "gantry mcp:", err)
		return 2
	}
	f, err := parseFlags(rest)
	if err != nil {
		if err == errHelp {
			usage(os.Stdout)
			return 0
		}
		fmt.Fprintln(os.Stderr, "gantry mcp:", err)
		return 2
	}
	if why := mcpNotApplicable(f); why != "" {
		fmt.Fprintln(os.Stderr, "gantry mcp:", why)
		return 2
	}
	token := ""
	if m.http != "" || m.listen != "" {
		if token, err = mcpToken(m.tokenFile); err != nil {
			fmt.Fprintln(os.Stderr, "gantry mcp:", err)
			return 2
		}
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM, syscall.SIGHUP)
	defer stop()
	s, err := mcpserve.New(mcpserve.Options{
		App: app.Options{Cwd: f.cwd, Provider: f.provider, Model: f.model, PermissionMode: f.permissionMode,
			Sandbox: f.sandbox.ptr(), Allow: f.allow, Deny: f.deny, Trust: f.trust},
		Version: version.String(),
		Log:     os.Stderr,
	})
	if err != nil {
		fmt.Fprintln(os.Stderr, "gantry mcp:", sentence(err))
		return exitCode(err)
	}
	if m.http == "" && m.listen == "" {
		// Each line is checked before the SDK reads it: a malformed one is answered
		// with its JSON-RPC error, and gantry mcp reads on.
		if err := s.RunStdio(ctx, os.Stdin, os.Stdout); err != nil {
			fmt.Fprintln(os.Stderr, "gantry mcp:", sentence(err))
			return 1
		}
		return 0
	}
	addr := m.http + m.listen
	l, err := net.Listen("tcp", addr)
	if err != nil {
		_ = s.Close()
		fmt.Fprintln(os.Stderr, "gantry mcp:", sentence(err))
		return 1
	}
	err = s.ServeHTTP(ctx, l, mcpserve.HTTPOptions{Token: token, IdleTimeout: m.idle, Ready: func(a net.Addr) {
		fmt.Fprintf(os.Stderr, "gantry mcp: serving http://%s%s\n", a, mcpserve.Path)
	}})
	if err != nil {
		fmt.Fprintln(os.Stderr, "gantry mcp:", sentence(err))
		return 1
	}
	return 0
}

// parseMCPFlags takes gantry mcp's own flags out of args (--flag VALUE or
// --flag=VALUE) and returns the rest.
func parseMCPFlags(args []string) (m mcpFlags, rest []string, err error) {
	m.idle = defaultIdle
	for i := 0; i < len(args); i++ {
		a := args[i]
		name, value, hasValue := strings.Cut(strings.TrimLeft(a, "-"), "=")
		if a == "--" {
			rest = append(rest, args[i:]...)
			break
		}
		if !strings.HasPrefix(a, "-") {
			rest = append(rest, a)
			continue
		}
		var dst *string
		var idle string
		switch name {
		case "http":
			dst = &m.http
		case "listen":
			dst = &m.listen
		case "token-file":
			dst = &m.tokenFile
		case "idle-timeout":
			dst = &idle
		default:
			rest = append(rest, a)
			continue
		}
		if !hasValue {
			if i+1 >= len(args) {
				return m, nil, fmt.Errorf("--%s needs a value", name)
			}
			i++
			value = args[i]
		}
		*dst = value
		if name == "idle-timeout" {
			if m.idle, err = time.ParseDuration(idle); err != nil || m.idle < 0 {
				return m, nil, fmt.Errorf("--idle-timeout takes a duration such as 30m or 0 (never), not %q", idle)
			}
		}
	}
	return m, rest, nil
}

func checkMCPAddress(m mcpFlags) error {
	switch {
	case m.http != "" && m.listen != "":
		return errors.New("give --http (a loopback address) or --listen (any address), not both")
	case m.http != "":
		return mcpserve.CheckAddress(m.http, false)
	case m.listen != "":
		return mcpserve.CheckAddress(m.listen, true)
	case m.tokenFile != "":
		return errors.New("--token-file goes with --http or --listen: stdio needs no token")
	}
	return nil
}

// mcpToken is the bearer token of the HTTP endpoint: the first line of --token-file,
// else GANTRY_MCP_TOKEN.
func mcpToken(file string) (string, error) {
	if file != "" {
		b, err := os.ReadFile(file)
		if err != nil {
			return "", fmt.Errorf("--token-file: %v", err)
		}
		tok, _, _ := strings.Cut(string(b), "\n")
		if tok = strings.TrimSpace(tok); tok == "" {
			return "", fmt.Errorf("--token-file %s is empty", file)
		}
		return tok, nil
	}
	if tok := strings.TrimSpace(os.Getenv("GANTRY_MCP_TOKEN")); tok != "" {
		return tok, nil
	}
	return "", errors.New("the HTTP endpoint needs a bearer token: give --token-file FILE or set GANTRY_MCP_TOKEN")
}

// mcpNotApplicable says which of print mode's flags mean nothing here.
func mcpNotApplicable(f *flags) string {
	switch {
	case f.print || f.outputFormat != "text":
		return "-p and --output-format do not apply: the client sends the calls and reads the results"
	case f.cont || f.resume != "" || f.fork:
		return "--continue, --resume and --fork do not apply: each MCP session is a new gantry session"
	case f.vibe:
		return "--vibe does not apply: workers belong to a conversation, and no model runs here"
	case f.interactive:
		return "--interactive does not apply: permission questions go to the client (elicitation) or are refused"
	case f.maxTurns != 0 || f.systemPrompt != "" || f.appendSystemPrompt != "":
		return "--max-turns and the system prompt flags do not apply: no model runs here"
	case f.prompt != "":
		return fmt.Sprintf("unexpected argument %q: the client sends the calls", f.prompt)
	}
	return ""
}
