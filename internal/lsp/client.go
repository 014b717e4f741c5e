package lsp

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"strings"
	"sync"
	"time"

	"github.com/gantry-dev/gantry/internal/contain"
	"go.lsp.dev/jsonrpc2"
	"go.lsp.dev/protocol"
	"go.lsp.dev/uri"
)

// Bounds of a server's life.
const (
	initTimeout     = 30 * time.Second
	shutdownTimeout = 2 * time.Second
	killGrace       = time.Second
	stderrKeep      = 8 // lines of stderr kept for status
)

// Client is one running language server for one root.
type Client struct {
	spec    Spec
	root    string
	observe func(Event) // Options.Observe (nil: none)
	proc    *contain.Process
	conn    jsonrpc2.Conn
	srv     protocol.Server

	ready     chan struct{} // closed on the first progress end or diagnostics
	readyOnce sync.Once
	dead      chan struct{} // closed when the process exited
	waitErr   error

	mu      sync.Mutex
	changed chan struct{}        // closed and replaced at each publish
	diags   map[string]published // by path
	docs    map[string]*doc      // by path
	stderr  []string
	closing bool
	working map[string]bool // progress tokens begun and not ended
}

// start starts the server of spec with binary bin in root and initializes it. The
// process leads its own group, so Close stops what it spawns too.
func start(ctx context.Context, pol *contain.Policy, spec Spec, bin, root string, observe func(Event)) (_ *Client, err error) {
	proc := pol.Process(contain.Spec{Argv: append([]string{bin}, spec.Args...), Dir: root, Widen: serverWidening()})
	cmd := proc.Cmd
	in, err := cmd.StdinPipe()
	if err != nil {
		return nil, err
	}
	out, err := cmd.StdoutPipe()
	if err != nil {
		return nil, err
	}
	errR, errW := io.Pipe()
	cmd.Stderr = errW
	if err := proc.Start(); err != nil {
		return nil, fmt.Errorf("starting %s: %w", bin, err)
	}
	c := &Client{spec: spec, root: root, observe: observe, proc: proc, ready: make(chan struct{}), dead: make(chan struct{}),
		changed: make(chan struct{}), diags: map[string]published{}, docs: map[string]*doc{},
		working: map[string]bool{}}
	go c.readStderr(errR)
	go func() {
		c.waitErr = proc.WaitExit()
		_ = errW.Close()
		close(c.dead)
	}()
	stream := jsonrpc2.NewHeaderStream(pipe{out, in})
	_, c.conn, c.srv = protocol.NewClient(context.Background(), handler{c: c}, stream)
	defer func() {
		if err != nil {
			_ = c.Close(context.Background())
		}
	}()
	ictx, cancel := context.WithTimeout(ctx, initTimeout)
	defer cancel()
	if _, err := c.srv.Initialize(ictx, c.initParams()); err != nil {
		return nil, fmt.Errorf("initializing %s: %w%s", spec.Name, err, c.stderrNote())
	}
	if err := c.srv.Initialized(ictx, &protocol.InitializedParams{}); err != nil {
		return nil, fmt.Errorf("initializing %s: %w", spec.Name, err)
	}
	return c, nil
}

func (c *Client) initParams() *protocol.InitializeParams {
	u := uri.File(c.root)
	yes := true
	// No process id: the server runs in a PID namespace of its own, where gantry's pid
	// names another process or none, and a server that watches its client's pid
	// (vscode-languageserver's do) would exit at once. gantry's end ends the
	// namespace, and the server with it.
	p := &protocol.InitializeParams{}
	p.ClientInfo = protocol.ClientInfo{Name: "gantry"}
	//lint:ignore SA1019 older servers (pylsp, some clangd) still read rootUri only
	p.RootURI = &u
	p.WorkspaceFolders = protocol.NewNullable([]protocol.WorkspaceFolder{{URI: u, Name: c.root}})
	if c.spec.InitOptions != nil {
		p.InitializationOptions = protocol.LSPAny(c.spec.InitOptions)
	}
	p.Capabilities = protocol.ClientCapabilities{
		Window: &protocol.WindowClientCapabilities{WorkDoneProgress: &yes},
		Workspace: &protocol.WorkspaceClientCapabilities{Configuration: &yes, WorkspaceFolders: &yes,
			WorkspaceEdit: &protocol.WorkspaceEditClientCapabilities{DocumentChanges: &yes}},
		TextDocument: &protocol.TextDocumentClientCapabilities{
			Synchronization:    &protocol.TextDocumentSyncClientCapabilities{DidSave: &yes},
			PublishDiagnostics: &protocol.PublishDiagnosticsClientCapabilities{VersionSupport: &yes},
			DocumentSymbol:     &protocol.DocumentSymbolClientCapabilities{HierarchicalDocumentSymbolSupport: &yes},
			Hover:              &protocol.HoverClientCapabilities{ContentFormat: []protocol.MarkupKind{protocol.MarkupKindPlainText}},
			CodeAction: &protocol.CodeActionClientCapabilities{CodeActionLiteralSupport: protocol.ClientCodeActionLiteralOptions{
				CodeActionKind: protocol.ClientCodeActionKindOptions{ValueSet: []protocol.CodeActionKind{protocol.CodeActionKindQuickFix,
					protocol.CodeActionKindRefactor, protocol.CodeActionKindSource}}}},
		},
	}
	return p
}

// pipe joins a server's stdout and stdin into one stream.
type pipe struct {
	io.ReadCloser
	w io.WriteCloser
}

func (p pipe) Write(b []byte) (int, error) { return p.w.Write(b) }

func (p pipe) Close() error { return errors.Join(p.w.Close(), p.ReadCloser.Close()) }

func (c *Client) readStderr(r io.Reader) {
	buf := make([]byte, 4096)
	var line []byte
	for {
		n, err := r.Read(buf)
		line = append(line, buf[:n]...)
		for {
			i := bytes.IndexByte(line, '\n')
			if i < 0 {
				break
			}
			c.addStderr(string(line[:i]))
			line = line[i+1:]
		}
		if err != nil {
			if len(line) > 0 {
				c.addStderr(string(line))
			}
			return
		}
	}
}

func (c *Client) addStderr(s string) {
	if s = strings.TrimSpace(s); s == "" {
		return
	}
	c.mu.Lock()
	c.stderr = append(c.stderr, s)
	if len(c.stderr) > stderrKeep {
		c.stderr = c.stderr[len(c.stderr)-stderrKeep:]
	}
	c.mu.Unlock()
}

// Stderr is the last lines the server wrote to its stderr.
func (c *Client) Stderr() []string {
	c.mu.Lock()
	defer c.mu.Unlock()
	return append([]string(nil), c.stderr...)
}

func (c *Client) stderrNote() string {
	if s := c.Stderr(); len(s) > 0 {
		return " (stderr: " + strings.Join(s, " | ") + ")"
	}
	return ""
}

// Alive says whether the server process still runs.
func (c *Client) Alive() bool {
	select {
	case <-c.dead:
		return false
	default:
		return true
	}
}

// Died says how the server ended, with its last stderr lines.
func (c *Client) Died() error {
	return fmt.Errorf("%s exited (%v)%s", c.spec.Name, c.waitErr, c.stderrNote())
}

// Pid is the server's process id.
func (c *Client) Pid() int { return c.proc.Pid() }

// Spec is the server's row of the table.
func (c *Client) Spec() Spec { return c.spec }

// Root is the folder the server serves.
func (c *Client) Root() string { return c.root }

// Server is the typed access to the server's requests.
func (c *Client) Server() protocol.Server { return c.srv }

// WaitReady waits, at most d, for the server to say it is ready: the end of a
// progress or the first diagnostics. A server that says nothing is taken as ready.
func (c *Client) WaitReady(ctx context.Context, d time.Duration) {
	if c.Ready() {
		return // a warm query's case: no timer made
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-c.ready:
	case <-c.dead:
	case <-t.C:
		c.readyOnce.Do(func() { close(c.ready) })
	case <-ctx.Done():
	}
}

func (c *Client) markReady() { c.readyOnce.Do(func() { close(c.ready) }) }

// Ready says whether the server has said it is ready (see WaitReady), without waiting.
func (c *Client) Ready() bool {
	select {
	case <-c.ready:
		return true
	default:
		return false
	}
}

// Close asks the server to shut down and exit, within a bound, then stops its
// process group.
func (c *Client) Close(ctx context.Context) error {
	c.mu.Lock()
	if c.closing {
		c.mu.Unlock()
		<-c.dead
		return nil
	}
	c.closing = true
	c.mu.Unlock()
	if c.Alive() {
		sctx, cancel := context.WithTimeout(ctx, shutdownTimeout)
		if err := c.srv.Shutdown(sctx); err == nil {
			_ = c.srv.Exit(sctx)
		}
		cancel()
	}
	_ = c.conn.Close()
	t := time.NewTimer(shutdownTimeout)
	select {
	case <-c.dead:
	case <-t.C:
	}
	t.Stop()
	c.proc.Stop(killGrace)
	<-c.dead
	<-c.conn.Done()
	return nil
}
