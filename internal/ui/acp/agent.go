package acp

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"sync"
	"time"

	sdk "github.com/coder/acp-go-sdk"

	"github.com/gantry-dev/gantry/internal/app"
	store "github.com/gantry-dev/gantry/internal/session"
)

// authMethodID is the one authentication method gantry offers: the API keys in the
// environment the editor starts it with.
const authMethodID = "environment"

// agent implements the SDK's Agent: the connection-wide state and the sessions.
type agent struct {
	opts Options
	out  *output
	log  *slog.Logger
	conn *sdk.AgentSideConnection
	// pool owns the live resources every session of the connection shares (MCP
	// servers, and the language servers, debuggers and kernels of later tools).
	pool *app.Pool

	inflight sync.WaitGroup // requests being handled

	mu       sync.Mutex
	caps     sdk.ClientCapabilities
	sessions map[string]*session
}

var (
	_ sdk.Agent       = (*agent)(nil)
	_ sdk.AgentLoader = (*agent)(nil)
)

func newAgent(opts Options, out *output, log *slog.Logger) *agent {
	pool := app.NewPool(func(name string, err error) { log.Warn("a resource failed", "resource", name, "err", err) })
	return &agent{opts: opts, out: out, log: log, sessions: map[string]*session{}, pool: pool}
}

// Initialize implements sdk.Agent.
func (a *agent) Initialize(_ context.Context, p sdk.InitializeRequest) (sdk.InitializeResponse, error) {
	defer a.track()()
	a.mu.Lock()
	a.caps = p.ClientCapabilities
	a.mu.Unlock()
	version := a.opts.Version
	if version == "" {
		version = "dev"
	}
	return sdk.InitializeResponse{
		ProtocolVersion: sdk.ProtocolVersionNumber,
		AgentCapabilities: sdk.AgentCapabilities{
			LoadSession:        true,
			McpCapabilities:    sdk.McpCapabilities{Http: true},
			PromptCapabilities: sdk.PromptCapabilities{Image: true, EmbeddedContext: true},
			SessionCapabilities: sdk.SessionCapabilities{
				List:   &sdk.SessionListCapabilities{},
				Close:  &sdk.SessionCloseCapabilities{},
				Resume: &sdk.SessionResumeCapabilities{},
			},
		},
		AuthMethods: []sdk.AuthMethod{{Agent: &sdk.AuthMethodAgent{
			Id:          authMethodID,
			Name:        "API key from the environment",
			Description: sdk.Ptr("gantry uses ANTHROPIC_API_KEY or OPENAI_API_KEY (or GANTRY_PROVIDER, GANTRY_MODEL and its config files) from the environment the editor starts it with."),
		}}},
		AgentInfo: &sdk.Implementation{Name: "gantry", Title: sdk.Ptr("gantry"), Version: version},
	}, nil
}

// Authenticate implements sdk.Agent: it checks that a provider is configured.
func (a *agent) Authenticate(_ context.Context, p sdk.AuthenticateRequest) (sdk.AuthenticateResponse, error) {
	defer a.track()()
	if p.MethodId != authMethodID {
		return sdk.AuthenticateResponse{}, sdk.NewInvalidParams(map[string]any{"error": fmt.Sprintf("unknown authentication method %q; gantry offers %q", p.MethodId, authMethodID)})
	}
	cwd, _ := os.Getwd()
	if err := app.CheckProvider(a.opts.App, cwd); err != nil {
		return sdk.AuthenticateResponse{}, sdk.NewAuthRequired(map[string]any{"error": err.Error()})
	}
	return sdk.AuthenticateResponse{}, nil
}

// NewSession implements sdk.Agent.
func (a *agent) NewSession(ctx context.Context, p sdk.NewSessionRequest) (sdk.NewSessionResponse, error) {
	defer a.track()()
	s, err := a.open(ctx, p.Cwd, p.McpServers, "")
	if err != nil {
		return sdk.NewSessionResponse{}, err
	}
	// The session's updates wait for this response (see output.afterResponse).
	a.out.afterResponse(s.id, func() { s.opened() })
	return sdk.NewSessionResponse{SessionId: sdk.SessionId(s.id), Modes: s.modeState(), ConfigOptions: s.configOptions()}, nil
}

// LoadSession implements sdk.AgentLoader: it replays the stored conversation as
// updates, then answers.
func (a *agent) LoadSession(ctx context.Context, p sdk.LoadSessionRequest) (sdk.LoadSessionResponse, error) {
	defer a.track()()
	s, err := a.open(ctx, p.Cwd, p.McpServers, string(p.SessionId))
	if err != nil {
		return sdk.LoadSessionResponse{}, err
	}
	s.opened(s.replay()...)
	return sdk.LoadSessionResponse{Modes: s.modeState(), ConfigOptions: s.configOptions()}, nil
}

// ResumeSession implements sdk.Agent: a stored session, without replay.
func (a *agent) ResumeSession(ctx context.Context, p sdk.ResumeSessionRequest) (sdk.ResumeSessionResponse, error) {
	defer a.track()()
	s, err := a.open(ctx, p.Cwd, p.McpServers, string(p.SessionId))
	if err != nil {
		return sdk.ResumeSessionResponse{}, err
	}
	s.opened()
	return sdk.ResumeSessionResponse{Modes: s.modeState(), ConfigOptions: s.configOptions()}, nil
}

// open starts a session in cwd: a new one, or the stored session resume.
func (a *agent) open(ctx context.Context, cwd string, servers []sdk.McpServer, resume string) (*session, error) {
	if !filepath.IsAbs(cwd) {
		return nil, sdk.NewInvalidParams(map[string]any{"error": fmt.Sprintf("cwd must be an absolute path, not %q", cwd)})
	}
	if fi, err := os.Stat(cwd); err != nil || !fi.IsDir() {
		return nil, sdk.NewInvalidParams(map[string]any{"error": fmt.Sprintf("cwd %s is not an existing directory", cwd)})
	}
	if resume != "" {
		if s := a.session(resume); s != nil {
			s.close() // loaded again: the new one replaces it
			a.drop(resume)
		}
	}
	a.mu.Lock()
	caps := a.caps
	a.mu.Unlock()
	s := &session{ag: a, caps: caps, isOpen: make(chan struct{})}
	opts := a.opts.App
	opts.Cwd, opts.Resume, opts.Continue = cwd, resume, false
	opts.MCPServers = append(append([]app.MCPServer(nil), opts.MCPServers...), mcpServers(servers)...)
	opts.Resources = a.pool
	s.editor(&opts)
	ap, err := app.New(opts)
	if err != nil {
		return nil, openError(err, resume)
	}
	s.attach(ap)
	// The session's first events (a server that failed, a resumed todo list) wait in
	// its queue until the client has the answer (see opened).
	if err := ap.Start(ctx, s.handle, s); err != nil {
		_ = ap.Close()
		return nil, sdk.NewInternalError(map[string]any{"error": err.Error()})
	}
	a.mu.Lock()
	a.sessions[s.id] = s
	a.mu.Unlock()
	return s, nil
}

// openError turns app.New's failure into the JSON-RPC error a client expects.
func openError(err error, resume string) error {
	switch {
	case errors.Is(err, app.ErrNoProvider):
		return sdk.NewAuthRequired(map[string]any{"error": err.Error()})
	case resume != "" && errors.Is(err, store.ErrNotFound):
		return notFound(fmt.Sprintf("there is no stored session %s", resume))
	}
	return sdk.NewInternalError(map[string]any{"error": err.Error()})
}

// notFound is JSON-RPC's "resource not found".
func notFound(msg string) *sdk.RequestError {
	return &sdk.RequestError{Code: -32002, Message: "Resource not found", Data: map[string]any{"error": msg}}
}

func (a *agent) session(id string) *session {
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.sessions[id]
}

func (a *agent) drop(id string) {
	a.mu.Lock()
	delete(a.sessions, id)
	a.mu.Unlock()
	a.out.forget(id)
}

// known returns the session id names, or the error to answer.
func (a *agent) known(id sdk.SessionId) (*session, error) {
	if s := a.session(string(id)); s != nil {
		return s, nil
	}
	return nil, notFound(fmt.Sprintf("unknown session %q: create it with session/new or load it with session/load", id))
}

// Cancel implements sdk.Agent. The SDK has already cancelled the prompt's context;
// this ends the turn of a prompt that has not reached the loop yet too.
func (a *agent) Cancel(_ context.Context, p sdk.CancelNotification) error {
	if s := a.session(string(p.SessionId)); s != nil {
		s.cancelTurn()
		s.app.StopWakeTurn() // or the turn a hook's wake started
	}
	return nil
}

// CloseSession implements sdk.Agent: it cancels the turn, waits for it, and frees
// the session.
func (a *agent) CloseSession(_ context.Context, p sdk.CloseSessionRequest) (sdk.CloseSessionResponse, error) {
	defer a.track()()
	s, err := a.known(p.SessionId)
	if err != nil {
		return sdk.CloseSessionResponse{}, err
	}
	a.drop(s.id)
	s.close()
	return sdk.CloseSessionResponse{}, nil
}

// listPage is how many sessions session/list returns at a time.
const listPage = 50

// ListSessions implements sdk.Agent, newest first, filtered by cwd.
func (a *agent) ListSessions(_ context.Context, p sdk.ListSessionsRequest) (sdk.ListSessionsResponse, error) {
	defer a.track()()
	// Listing only reads: it works on a store that cannot be written.
	var all []store.Info
	st, err := store.OpenRead(app.StorePath(a.opts.App))
	switch {
	case errors.Is(err, store.ErrNoStore):
	case err != nil:
		return sdk.ListSessionsResponse{}, sdk.NewInternalError(map[string]any{"error": err.Error()})
	default:
		defer st.Close()
		if all, err = st.List(0); err != nil {
			return sdk.ListSessionsResponse{}, sdk.NewInternalError(map[string]any{"error": err.Error()})
		}
	}
	start := 0
	if p.Cursor != nil {
		if start, err = strconv.Atoi(*p.Cursor); err != nil || start < 0 {
			return sdk.ListSessionsResponse{}, sdk.NewInvalidParams(map[string]any{"error": "the cursor is not one gantry gave"})
		}
	}
	var picked []store.Info
	for _, in := range all {
		if p.Cwd == nil || *p.Cwd == "" || filepath.Clean(*p.Cwd) == in.Cwd || store.Canonical(*p.Cwd) == in.Cwd {
			picked = append(picked, in)
		}
	}
	sort.SliceStable(picked, func(i, j int) bool { return picked[i].Updated.After(picked[j].Updated) })
	resp := sdk.ListSessionsResponse{Sessions: []sdk.SessionInfo{}}
	for i := start; i < len(picked) && i < start+listPage; i++ {
		in := picked[i]
		info := sdk.SessionInfo{SessionId: sdk.SessionId(in.ID), Cwd: in.Cwd, UpdatedAt: sdk.Ptr(in.Updated.UTC().Format(time.RFC3339))}
		if in.Title != "" {
			info.Title = sdk.Ptr(in.Title)
		}
		resp.Sessions = append(resp.Sessions, info)
	}
	if start+listPage < len(picked) {
		resp.NextCursor = sdk.Ptr(strconv.Itoa(start + listPage))
	}
	return resp, nil
}

// SetSessionMode implements sdk.Agent.
func (a *agent) SetSessionMode(_ context.Context, p sdk.SetSessionModeRequest) (sdk.SetSessionModeResponse, error) {
	defer a.track()()
	s, err := a.known(p.SessionId)
	if err != nil {
		return sdk.SetSessionModeResponse{}, err
	}
	if err := s.setMode(string(p.ModeId)); err != nil {
		return sdk.SetSessionModeResponse{}, err
	}
	return sdk.SetSessionModeResponse{}, nil
}

// SetSessionConfigOption implements sdk.Agent: the mode and the model.
func (a *agent) SetSessionConfigOption(_ context.Context, p sdk.SetSessionConfigOptionRequest) (sdk.SetSessionConfigOptionResponse, error) {
	defer a.track()()
	v := p.ValueId
	if v == nil {
		return sdk.SetSessionConfigOptionResponse{}, sdk.NewInvalidParams(map[string]any{"error": "gantry's options take a value id, not a boolean"})
	}
	s, err := a.known(v.SessionId)
	if err != nil {
		return sdk.SetSessionConfigOptionResponse{}, err
	}
	if err := s.setOption(string(v.ConfigId), string(v.Value)); err != nil {
		return sdk.SetSessionConfigOptionResponse{}, err
	}
	return sdk.SetSessionConfigOptionResponse{ConfigOptions: s.configOptions()}, nil
}

// track counts a request in flight until the returned func is called.
func (a *agent) track() func() {
	a.inflight.Add(1)
	return a.inflight.Done
}

// drain waits, up to wait, for the requests in flight to be answered.
func (a *agent) drain(wait time.Duration) {
	done := make(chan struct{})
	go func() { a.inflight.Wait(); close(done) }()
	select {
	case <-done:
		time.Sleep(20 * time.Millisecond) // the SDK writes the answer just after the handler returns
	case <-time.After(wait):
	}
}

// closeAll ends every session (the client went away).
func (a *agent) closeAll() {
	a.mu.Lock()
	all := make([]*session, 0, len(a.sessions))
	for _, s := range a.sessions {
		all = append(all, s)
	}
	a.sessions = map[string]*session{}
	a.mu.Unlock()
	var wg sync.WaitGroup
	for _, s := range all {
		wg.Add(1)
		go func() { defer wg.Done(); s.close() }()
	}
	wg.Wait()
}
