package mcpclient

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

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

// stdioTransport is the SDK's command transport, noting the pid of the process it
// starts and copying its standard error.
type stdioTransport struct {
	inner *mcp.CommandTransport
	proc  *stdioProc
}

// Connect starts the command and connects to it over its standard input and output.
func (t *stdioTransport) Connect(ctx context.Context) (mcp.Connection, error) {
	c, err := t.inner.Connect(ctx)
	p := t.proc
	_ = p.errW.Close() // the child holds its own copy
	if err != nil {
		return nil, err
	}
	p.pgid.Store(int64(t.inner.Command.Process.Pid))
	p.copying.Store(true)
	go func() {
		defer close(p.copied)
		_, _ = io.Copy(p.stderr, p.errR)
	}()
	return c, nil
}

// newStdioTransport prepares the command of s, run in s.Cwd (relative to dir) or dir
// (gantry's own when empty): its own session and process group (no controlling
// terminal, so it cannot read or prompt on gantry's), s.Env added to gantry's
// environment, standard error kept in a bounded buffer and nowhere else.
func newStdioTransport(s Server, dir string) (*stdioTransport, *stdioProc, error) {
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
	cmd := exec.Command(s.Command, s.Args...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), sortedPairs(s.Env)...)
	cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true}
	cmd.Stderr = errW
	cmd.WaitDelay = closeGrace
	proc := &stdioProc{stderr: &tailBuffer{}, errR: errR, errW: errW, copied: make(chan struct{})}
	return &stdioTransport{
		inner: &mcp.CommandTransport{Command: cmd, TerminateDuration: closeGrace},
		proc:  proc,
	}, proc, nil
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
