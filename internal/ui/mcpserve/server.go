// Package mcpserve is the face gantry shows other programs' agents: `gantry mcp`
// serves gantry's own tools over the Model Context Protocol (stdio, or streamable
// HTTP behind a bearer token). Each MCP session is a gantry session of its own
// (app.Options.ToolServer): its calls go through the same hooks and permission gate
// as a model's, and the live resources its tools start — language servers, debug
// sessions, kernels, staged structural edits, background tasks — are its own and are
// released when it closes.
package mcpserve

import (
	"context"
	"errors"
	"fmt"
	"io"
	"sync"
	"sync/atomic"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/gantry-dev/gantry/internal/app"
	"github.com/gantry-dev/gantry/internal/face"
	"github.com/gantry-dev/gantry/internal/tool"
)

// Options configure a Server.
type Options struct {
	// App are the options of every session's gantry session (folder, permission
	// mode, rules, sandbox); ToolServer is set by the Server.
	App app.Options
	// Version is gantry's, given in the initialize answer.
	Version string
	// Log receives the sessions' notices and what failed (stderr; nil: nowhere).
	Log io.Writer
}

// Server serves gantry's tools to MCP clients: one gantry session per MCP session.
type Server struct {
	opts Options
	mcp  *mcp.Server
	// built is closed when the gantry session that lists the tools is built (build);
	// tools and buildErr are set before, and read only after.
	built    chan struct{}
	tools    []tool.Tool
	buildErr error
	// failed is closed, after built, when the build failed.
	failed chan struct{}

	mu       sync.Mutex
	spare    *app.App // the session New built to list the tools, for the first MCP session
	sessions map[*mcp.ServerSession]*conn
	closed   bool
	wg       sync.WaitGroup // the goroutines that close a session's App when it ends
	calls    hangups
}

// conn is one MCP session's gantry session.
type conn struct {
	app   *app.App
	ready chan struct{} // closed when app is started (or failed: err)
	err   error
	n     atomic.Int64 // its calls, for their ids
}

// New makes the Server and starts building, beside it, a gantry session in
// opts.App's folder that says which tools are served (those it declares, but for the
// ones that act on a conversation). A client's initialize is answered at once; its
// requests for the tools (their list, a call) wait until the session is built, so that
// a client spawning gantry mcp is not kept waiting for what only its first call
// needs. When the session cannot be built, those requests are answered with the
// reason and Run and ServeHTTP return it.
func New(opts Options) (*Server, error) {
	opts.App.ToolServer = true
	s := &Server{opts: opts, built: make(chan struct{}), failed: make(chan struct{}), sessions: map[*mcp.ServerSession]*conn{}}
	s.mcp = mcp.NewServer(&mcp.Implementation{Name: "gantry", Title: "gantry", Version: opts.Version}, &mcp.ServerOptions{
		Instructions: instructions,
		Capabilities: &mcp.ServerCapabilities{Tools: &mcp.ToolCapabilities{}}, // the list is fixed once built
	})
	s.mcp.AddReceivingMiddleware(s.afterBuild)
	go s.build()
	return s, nil
}

// build builds the session that lists the tools (kept for the first MCP session)
// and adds its tools to the MCP server.
func (s *Server) build() {
	defer close(s.built)
	a, err := newApp(s.opts.App)
	if err != nil {
		s.buildErr = err
		close(s.failed) // buildErr is set: a reader of failed may read it
		return
	}
	s.mu.Lock()
	s.spare = a
	s.mu.Unlock()
	s.tools = a.Served()
	for _, t := range s.tools {
		s.mcp.AddTool(describe(t), s.handler(t))
	}
}

// newApp builds a gantry session; tests hold it to see what waits for it.
var newApp = app.New

// afterBuild holds the requests that need the tools — their list and a call — until
// they are built; the others (initialize or discover, ping, notifications) go through
// at once.
func (s *Server) afterBuild(next mcp.MethodHandler) mcp.MethodHandler {
	return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
		if method != "tools/list" && method != "tools/call" {
			return next(ctx, method, req)
		}
		select {
		case <-s.built:
		case <-ctx.Done():
			return nil, ctx.Err()
		}
		if s.buildErr != nil {
			return nil, fmt.Errorf("gantry could not start a session in its folder: %w", s.buildErr)
		}
		return next(ctx, method, req)
	}
}

const instructions = `gantry's own tools, run in the folder gantry mcp was started in: files, search,
structural search and rewrite, language servers, a debugger, persistent Python and JavaScript
kernels, and a shell under gantry's permission rules and sandbox. The language servers, debug
session, kernels and staged edits a call starts stay with this connection until it closes.`

// Tools are the tools the Server serves, in order, once they are built (none when
// the build failed).
func (s *Server) Tools() []tool.Tool {
	<-s.built
	return s.tools
}

// Run serves one client over t (stdio: &mcp.StdioTransport{}) until it disconnects or
// ctx ends, or the tools' session cannot be built, then closes everything the session
// started. It returns the build's error, if any.
func (s *Server) Run(ctx context.Context, t mcp.Transport) error {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	go func() {
		select {
		case <-s.failed:
			cancel()
		case <-ctx.Done():
		}
	}()
	err := s.mcp.Run(ctx, t)
	if errors.Is(err, context.Canceled) || errors.Is(err, io.EOF) {
		err = nil
	}
	<-s.built
	return errors.Join(err, s.buildErr, s.Close())
}

// Close ends every session (their tools' processes and servers with them) and waits
// until they are closed.
func (s *Server) Close() error {
	<-s.built // a session being built is closed once it is
	s.mu.Lock()
	s.closed = true
	spare := s.spare
	s.spare = nil
	var live []*mcp.ServerSession
	for ss := range s.sessions {
		live = append(live, ss)
	}
	s.mu.Unlock()
	for _, ss := range live {
		_ = ss.Close() // its watcher closes its App
	}
	s.wg.Wait()
	if spare != nil {
		return spare.Close()
	}
	return nil
}

// session returns the gantry session of ss, starting it on its first call.
func (s *Server) session(ss *mcp.ServerSession) (*conn, error) {
	s.mu.Lock()
	if s.closed {
		s.mu.Unlock()
		return nil, errors.New("gantry mcp is shutting down")
	}
	if c, ok := s.sessions[ss]; ok {
		s.mu.Unlock()
		<-c.ready
		return c, c.err
	}
	c := &conn{ready: make(chan struct{})}
	s.sessions[ss] = c
	a := s.spare
	s.spare = nil
	s.wg.Add(1)
	s.mu.Unlock()

	go func() { // the session's end closes what it started
		defer s.wg.Done()
		_ = ss.Wait()
		<-c.ready
		if c.app != nil {
			if err := c.app.Close(); err != nil {
				s.logf("closing a session: %v", err)
			}
		}
		s.mu.Lock()
		delete(s.sessions, ss)
		s.mu.Unlock()
	}()

	var err error
	if a == nil {
		a, err = app.New(s.opts.App)
	}
	if err == nil {
		err = a.Start(context.Background(), s.sink, &asker{ss: ss})
		if err != nil {
			_ = a.Close()
			a = nil
		}
	}
	c.app, c.err = a, err
	close(c.ready)
	return c, err
}

// sink takes a session's events: what goes wrong is logged; the calls' own events
// are the client's business (it has the results).
func (s *Server) sink(e face.Event) {
	if n, ok := e.(face.Notice); ok {
		s.logf("%s", n.Text)
	}
}

func (s *Server) logf(format string, args ...any) {
	if s.opts.Log != nil {
		fmt.Fprintf(s.opts.Log, "gantry mcp: "+format+"\n", args...)
	}
}

// handler runs a client's call of t in the session it came in.
func (s *Server) handler(t tool.Tool) mcp.ToolHandler {
	name := t.Name()
	return func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		c, err := s.session(req.Session)
		if err != nil {
			return failure(fmt.Sprintf("gantry could not start a session for this connection: %v.", err)), nil
		}
		ctx, cancel := context.WithCancel(ctx)
		defer cancel()
		if req.Extra != nil && req.Extra.Header != nil {
			if tok := req.Extra.Header.Get(hangupHeader); tok != "" {
				defer s.calls.watch(tok, cancel)()
			}
		}
		id := fmt.Sprintf("mcp_%d", c.n.Add(1))
		rt := &roundTrip{id: id}
		if res, ok := req.Params.InputResponses[permissionInput].(*mcp.ElicitResult); ok {
			rt.answer = res
		}
		start := time.Now()
		r := c.app.CallTool(context.WithValue(ctx, roundTripKey{}, rt), id, name, req.Params.Arguments)
		if rt.need != nil && rt.answer == nil {
			// The gate asked before anything ran: the question goes back to the client.
			return &mcp.CallToolResult{InputRequests: mcp.InputRequestMap{permissionInput: rt.need}}, nil
		}
		if ctx.Err() != nil {
			s.logf("%s was cancelled after %v (the client cancelled it or went away)", name, time.Since(start).Round(time.Millisecond))
		}
		return result(r), nil
	}
}
