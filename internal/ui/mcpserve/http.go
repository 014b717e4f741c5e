package mcpserve

import (
	"context"
	"crypto/rand"
	"crypto/subtle"
	"errors"
	"fmt"
	"net"
	"net/http"
	"strings"
	"sync"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// Path is where the streamable HTTP endpoint is served.
const Path = "/mcp"

// HTTPOptions configure ServeHTTP.
type HTTPOptions struct {
	// Token is the bearer token every request must carry (Authorization: Bearer …).
	Token string
	// IdleTimeout closes a session that sent nothing for this long (its client went
	// away without closing it); 0: never.
	IdleTimeout time.Duration
	// Ready, when set, is told the address served, once it listens.
	Ready func(addr net.Addr)
}

// ServeHTTP serves streamable HTTP on l until ctx ends, then closes every session.
func (s *Server) ServeHTTP(ctx context.Context, l net.Listener, o HTTPOptions) error {
	if o.Token == "" {
		return errors.New("the HTTP endpoint needs a bearer token")
	}
	srv := &http.Server{Handler: s.Handler(o), ReadHeaderTimeout: 10 * time.Second}
	if o.Ready != nil {
		o.Ready(l.Addr())
	}
	done := make(chan error, 1)
	go func() { done <- srv.Serve(l) }()
	var err error
	select {
	case <-ctx.Done():
	case err = <-done:
	case <-s.failed:
		err = s.buildErr
	}
	// Sessions first: their calls' streams end, then the server has no request left.
	closeErr := s.Close()
	sctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	if serr := srv.Shutdown(sctx); serr != nil {
		_ = srv.Close()
	}
	if errors.Is(err, http.ErrServerClosed) {
		err = nil
	}
	return errors.Join(err, closeErr)
}

// Handler is the streamable HTTP endpoint at Path: each MCP session its own gantry
// session; a request without the bearer token is refused (401); a client that hangs up
// while a call of its request runs cancels that call.
func (s *Server) Handler(o HTTPOptions) http.Handler {
	h := mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return s.mcp },
		&mcp.StreamableHTTPOptions{SessionTimeout: o.IdleTimeout})
	want := []byte("Bearer " + o.Token)
	mux := http.NewServeMux()
	mux.HandleFunc(Path, func(w http.ResponseWriter, r *http.Request) {
		got := []byte(r.Header.Get("Authorization"))
		if o.Token == "" || subtle.ConstantTimeCompare(got, want) != 1 {
			w.Header().Set("WWW-Authenticate", `Bearer realm="gantry mcp"`)
			http.Error(w, "gantry mcp: this endpoint needs the bearer token it was started with (Authorization: Bearer …)", http.StatusUnauthorized)
			return
		}
		if r.Method != http.MethodPost {
			h.ServeHTTP(w, r)
			return
		}
		tok := rand.Text()
		r.Header.Set(hangupHeader, tok) // the calls of this request find it in their Extra.Header
		h.ServeHTTP(w, r)
		if r.Context().Err() != nil {
			s.calls.hangup(tok) // the client went away before the answers
		}
	})
	return mux
}

// hangupHeader tags the calls of one POST, so that its hang-up cancels them.
const hangupHeader = "X-Gantry-Request"

// hangups are the cancels of the calls running, by the request that carried them; a
// request whose client hung up before its call started is remembered a while, so that
// the call is cancelled as it starts.
type hangups struct {
	mu      sync.Mutex
	running map[string][]*func()
	gone    map[string]time.Time
}

// watch registers the cancel of a call of request tok; the returned func unregisters it.
func (h *hangups) watch(tok string, cancel func()) func() {
	h.mu.Lock()
	defer h.mu.Unlock()
	if _, ok := h.gone[tok]; ok {
		cancel()
		return func() {}
	}
	if h.running == nil {
		h.running = map[string][]*func(){}
	}
	p := &cancel
	h.running[tok] = append(h.running[tok], p)
	return func() {
		h.mu.Lock()
		defer h.mu.Unlock()
		list := h.running[tok]
		for i, q := range list {
			if q == p {
				list = append(list[:i], list[i+1:]...)
				break
			}
		}
		if len(list) == 0 {
			delete(h.running, tok)
		} else {
			h.running[tok] = list
		}
	}
}

// hangup cancels the calls of request tok, now and as they start.
func (h *hangups) hangup(tok string) {
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.gone == nil {
		h.gone = map[string]time.Time{}
	}
	now := time.Now()
	for k, at := range h.gone {
		if now.Sub(at) > time.Minute {
			delete(h.gone, k)
		}
	}
	h.gone[tok] = now
	for _, c := range h.running[tok] {
		(*c)()
	}
}

// CheckAddress refuses an address gantry mcp may not listen on: --http takes a
// loopback address only (another address must be named with --listen).
func CheckAddress(addr string, explicit bool) error {
	host, port, err := net.SplitHostPort(addr)
	if err != nil {
		return fmt.Errorf("%q is not host:port: %v", addr, err)
	}
	if port == "" {
		return fmt.Errorf("%q names no port (give 0 for any free one)", addr)
	}
	if explicit {
		return nil
	}
	if strings.EqualFold(host, "localhost") {
		return nil
	}
	ip := net.ParseIP(host)
	if ip == nil || !ip.IsLoopback() {
		return fmt.Errorf("%s is not a loopback address: --http serves 127.0.0.1 or ::1 only; name another address with --listen to serve it there", addr)
	}
	return nil
}
