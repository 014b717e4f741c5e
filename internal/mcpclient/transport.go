package mcpclient

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"sort"
	"sync/atomic"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/gantry-dev/gantry/internal/contain"
	"github.com/gantry-dev/gantry/internal/procgroup"
)

// closeGrace is how long a stdio server has to exit once its input is closed, and then
// after SIGTERM, before its process group is killed.
const closeGrace = 2 * time.Second

// stdioProc is the process of a stdio server. It leads its own process group, so
// stopping it stops whatever it started too. Its standard error goes through a pipe of
// gantry's into a bounded buffer, so that when it dies its last words can be waited
// for.
type stdioProc struct {
	pgid   atomic.Int64 // the process's pid once started; its group's id
	stderr *tailBuffer

	errR, errW *os.File      // the stderr pipe: gantry's end, the child's end
	copying    atomic.Bool   // the copy of errR into stderr has started
	copied     chan struct{} // closed when that copy ends
}

// kill stops the process group, if the process was started, and returns once it is
// gone (or a short while after SIGKILL).
func (p *stdioProc) kill() {
	if pg := int(p.pgid.Load()); pg > 0 {
		procgroup.Kill(pg, closeGrace)
	}
}

// awaitStderr waits at most d for the server's standard error to close (it closes
// when the server and whatever it started have exited) and tells whether it has.
func (p *stdioProc) awaitStderr(d time.Duration) bool {
	if !p.copying.Load() {
		return true
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-p.copied:
		return true
	case <-t.C:
		return false
	}
}

// closeStderr closes both ends of the stderr pipe, after giving what is written a
// moment to arrive, and returns once the copy has ended. Only for Close: the process
// group is gone by then.
func (p *stdioProc) closeStderr() {
	_ = p.errW.Close()
	p.awaitStderr(500 * time.Millisecond) // longer only for a process that left the group
	_ = p.errR.Close()
	if p.copying.Load() {
		<-p.copied
	}
}

// stdioTransport starts the server's process under the session's policy (see
// contain.Policy) and speaks to it over its standard input and output, noting its pid
// and copying its standard error.
type stdioTransport struct {
	proc   *contain.Process
	state  *stdioProc
	name   string
	exited chan struct{} // closed when the process has exited
}

// Connect starts the command and connects to it over its standard input and output.
func (t *stdioTransport) Connect(ctx context.Context) (mcp.Connection, error) {
	p := t.state
	stdout, err := t.proc.Cmd.StdoutPipe()
	if err != nil {
		_ = p.errW.Close()
		return nil, err
	}
	stdin, err := t.proc.Cmd.StdinPipe()
	if err != nil {
		_ = p.errW.Close()
		return nil, err
	}
	err = t.proc.Start()
	_ = p.errW.Close() // the child holds its own copy
	if err != nil {
		return nil, fmt.Errorf("starting %s: %w", t.name, err)
	}
	p.pgid.Store(int64(t.proc.Pid()))
	p.copying.Store(true)
	go func() {
		defer close(p.copied)
		_, _ = io.Copy(p.stderr, p.errR)
	}()
	go func() {
		_ = t.proc.WaitExit() // its end is the connection's: the SDK sees its output close
		close(t.exited)
	}()
	return (&mcp.IOTransport{Reader: io.NopCloser(stdout), Writer: &stdinCloser{WriteCloser: stdin, t: t}}).Connect(ctx)
}

// stdinCloser ends the connection as the MCP specification says for stdio: the
// server's input is closed, and the server has closeGrace to exit before its group is
// stopped (SIGTERM, then SIGKILL).
type stdinCloser struct {
	io.WriteCloser
	t *stdioTransport
}

func (w *stdinCloser) Close() error {
	err := w.WriteCloser.Close()
	grace := time.NewTimer(closeGrace)
	defer grace.Stop()
	select {
	case <-w.t.exited:
	case <-grace.C:
		w.t.state.kill()
		<-w.t.exited
	}
	return err
}

// newStdioTransport prepares the command of s, run under the session's policy in
// s.Cwd (relative to dir) or dir (gantry's own when empty): its own PID namespace,
// session and process group (no controlling terminal, so it cannot read or prompt on
// gantry's), s.Env added to the session's environment, standard error kept in a
// bounded buffer and nowhere else. An MCP server reaches the network: the policy's
// sandbox is widened by that, by name.
func newStdioTransport(s Server, dir string, pol *contain.Policy) (*stdioTransport, *stdioProc, error) {
	if s.Cwd != "" {
		if filepath.IsAbs(s.Cwd) || dir == "" {
			dir = s.Cwd
		} else {
			dir = filepath.Join(dir, s.Cwd)
		}
		if fi, err := os.Stat(dir); err != nil || !fi.IsDir() {
			return nil, nil, fmt.Errorf("its cwd %s is not a folder", dir)
		}
	}
	errR, errW, err := os.Pipe()
	if err != nil {
		return nil, nil, err
	}
	proc := pol.Process(contain.Spec{Argv: append([]string{s.Command}, s.Args...), Dir: dir, Env: sortedPairs(s.Env), Widen: serverWidening()})
	proc.Cmd.Stderr = errW
	state := &stdioProc{stderr: &tailBuffer{}, errR: errR, errW: errW, copied: make(chan struct{})}
	return &stdioTransport{proc: proc, state: state, name: s.Command, exited: make(chan struct{})}, state, nil
}

// serverWidening is what an MCP stdio server may do beyond a bash command in the
// sandbox: reach the network (the services it fronts) and keep its state in the
// user's data and state folders (XDG_DATA_HOME, XDG_STATE_HOME; gantry's own data
// stays out of reach only as far as the sandbox's read-only paths go). A server that
// writes elsewhere needs sandbox.writable.
func serverWidening() *contain.Widening {
	w := &contain.Widening{Why: "MCP servers reach the network and keep state", Network: true}
	home, _ := os.UserHomeDir()
	for _, v := range [][2]string{{"XDG_DATA_HOME", ".local/share"}, {"XDG_STATE_HOME", ".local/state"}} {
		if d := os.Getenv(v[0]); filepath.IsAbs(d) {
			w.Writable = append(w.Writable, d)
		} else if home != "" {
			w.Writable = append(w.Writable, filepath.Join(home, v[1]))
		}
	}
	return w
}

// sortedPairs returns env as KEY=value pairs, sorted by key.
func sortedPairs(env map[string]string) []string {
	keys := make([]string, 0, len(env))
	for k := range env {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	pairs := make([]string, len(keys))
	for i, k := range keys {
		pairs[i] = k + "=" + env[k]
	}
	return pairs
}

// httpClient is the HTTP client of s, with an HTTP transport of its own (closed with
// the server) that adds s.Headers to every request.
func httpClient(s Server) (*http.Client, *http.Transport) {
	base := &http.Transport{Proxy: http.ProxyFromEnvironment}
	if def, ok := http.DefaultTransport.(*http.Transport); ok {
		base = def.Clone()
	}
	return &http.Client{Transport: headerTransport{base: base, headers: s.Headers}}, base
}

// newSSETransport prepares the legacy HTTP+SSE transport of s (the 2024-11-05
// protocol's: a GET event stream, and POSTs to the endpoint it names).
func newSSETransport(s Server) (mcp.Transport, *http.Transport) {
	client, base := httpClient(s)
	return sseTransport{&mcp.SSEClientTransport{Endpoint: s.URL, HTTPClient: client}}, base
}

// sseTransport is the SDK's SSE transport with its event stream living as long as the
// connection: the SDK ties the stream to the context given to Connect, which is
// start-up's and ends with it.
type sseTransport struct{ inner *mcp.SSEClientTransport }

// Connect opens the event stream within ctx's bounds, then detaches it from ctx.
func (t sseTransport) Connect(ctx context.Context) (mcp.Connection, error) {
	life, cancel := context.WithCancel(context.WithoutCancel(ctx))
	stop := context.AfterFunc(ctx, cancel)
	c, err := t.inner.Connect(life)
	if !stop() && err == nil {
		// ctx ended while the stream was opened: the stream is gone with it.
		_ = c.Close()
		err = ctx.Err()
	}
	if err != nil {
		cancel()
		return nil, err
	}
	return &sseConn{Connection: c, cancel: cancel}, nil
}

// sseConn ends its event stream's context when closed.
type sseConn struct {
	mcp.Connection
	cancel context.CancelFunc
}

func (c *sseConn) Close() error {
	err := c.Connection.Close()
	c.cancel()
	return err
}

// newHTTPTransport prepares the streamable-HTTP transport of s.
func newHTTPTransport(s Server) (mcp.Transport, *http.Transport) {
	client, base := httpClient(s)
	return &mcp.StreamableClientTransport{
		Endpoint:   s.URL,
		HTTPClient: client,
		// gantry only calls tools: it needs no server-initiated messages, and some
		// servers mishandle the standalone GET stream.
		DisableStandaloneSSE: true,
	}, base
}

// headerTransport adds fixed headers to each request.
type headerTransport struct {
	base    http.RoundTripper
	headers map[string]string
}

// RoundTrip sends a copy of req carrying the headers.
func (t headerTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	if len(t.headers) == 0 {
		return t.base.RoundTrip(req)
	}
	req = req.Clone(req.Context())
	for k, v := range t.headers {
		req.Header.Set(k, v)
	}
	return t.base.RoundTrip(req)
}
