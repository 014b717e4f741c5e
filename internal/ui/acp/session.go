package acp

import (
	"context"
	"sync"

	sdk "github.com/coder/acp-go-sdk"

	"github.com/gantry-dev/gantry/internal/app"
	"github.com/gantry-dev/gantry/internal/permission"
)

// session is one ACP session: a wired app and what the face keeps of it.
type session struct {
	ag   *agent
	app  *app.App
	id   string
	caps sdk.ClientCapabilities

	// sendMu orders the session's updates. Until the client has the session/new
	// response (ready), updates wait in queue.
	sendMu sync.Mutex
	ready  bool
	queue  []sdk.SessionUpdate
	// isOpen is closed once opened has run: a prompt waits for it, so that its
	// updates never go out after its answer (the client may send the prompt as
	// soon as it reads the session/new response, before opened runs).
	isOpen chan struct{}
	calls  map[string]string // tool call id → the id the client knows it by
	terms  map[string]bool   // tool calls shown with a live terminal
	// drafted are the calls shown while the model wrote them (drafts.go).
	drafted map[string]bool

	// turnMu is held while a turn runs; mu guards the rest.
	turnMu      sync.Mutex
	mu          sync.Mutex
	cancel      context.CancelFunc // the running turn's
	mode        permission.Mode    // the mode the client was last told
	model       string             // the model the next turn uses
	window      int                // the model's context window
	contextUsed int                // tokens the last request of the conversation filled
	closed      bool
	offer       commandOffer // the commands the client was last offered (offer.go)
}

// editor is the client's file access and terminals for the session's tools, as the
// client offers them (nil where it offers none).
func (s *session) editor(opts *app.Options) {
	if s.caps.Fs.ReadTextFile || s.caps.Fs.WriteTextFile {
		opts.Editor = &clientFiles{s: s, read: s.caps.Fs.ReadTextFile, write: s.caps.Fs.WriteTextFile}
	}
	if s.caps.Terminal {
		opts.Terminals = &clientTerminals{s: s}
	}
}

// attach binds the wired app.
func (s *session) attach(a *app.App) {
	s.app, s.id = a, a.SessionID()
	s.mode, s.model, s.window = a.Mode(), a.Model(), a.ContextWindow()
}

// opened runs once the client knows the session: first goes out replayed history,
// then the updates queued meanwhile, then the slash commands.
func (s *session) opened(replayed ...sdk.SessionUpdate) {
	s.sendMu.Lock()
	s.ready = true
	queued := append(replayed, s.queue...)
	s.queue = nil
	for _, u := range queued {
		s.write(u)
	}
	s.sendMu.Unlock()
	close(s.isOpen)
	s.offerCommands()
}

// waitOpen waits until the client has been sent the session's first updates.
func (s *session) waitOpen(ctx context.Context) error {
	select {
	case <-s.isOpen:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// send sends one update in order, or queues it until the session is opened. It never
// uses a turn's context: the last updates of a cancelled turn must still go out.
func (s *session) send(u sdk.SessionUpdate) {
	s.sendMu.Lock()
	defer s.sendMu.Unlock()
	if !s.ready {
		s.queue = append(s.queue, u)
		return
	}
	s.write(u)
}

func (s *session) write(u sdk.SessionUpdate) {
	err := s.ag.conn.SessionUpdate(context.Background(), sdk.SessionNotification{SessionId: sdk.SessionId(s.id), Update: u})
	if err != nil {
		s.ag.log.Warn("a session update was not sent", "session", s.id, "err", err)
	}
}

// startTurn cancels the running turn, if any, waits for it to end, and makes ctx's
// turn the running one. done must be called when the turn ends.
func (s *session) startTurn(ctx context.Context) (turn context.Context, done func(), ok bool) {
	s.cancelTurn()
	s.turnMu.Lock()
	s.mu.Lock()
	if s.closed {
		s.mu.Unlock()
		s.turnMu.Unlock()
		return nil, nil, false
	}
	turn, cancel := context.WithCancel(ctx)
	s.cancel = cancel
	s.mu.Unlock()
	return turn, func() {
		s.mu.Lock()
		s.cancel = nil
		s.mu.Unlock()
		cancel()
		s.turnMu.Unlock()
	}, true
}

// cancelTurn cancels the running turn; it does not wait.
func (s *session) cancelTurn() {
	s.mu.Lock()
	if s.cancel != nil {
		s.cancel()
	}
	s.mu.Unlock()
}

// close cancels the running turn, waits for it, and closes the app (background
// tasks are killed). It is safe to call twice.
func (s *session) close() {
	s.mu.Lock()
	if s.closed {
		s.mu.Unlock()
		return
	}
	s.closed = true
	s.mu.Unlock()
	s.cancelTurn()
	s.turnMu.Lock()
	for _, w := range s.app.EndSession(app.EndOther) {
		s.ag.log.Warn("a SessionEnd hook failed", "session", s.id, "warning", w)
	}
	if err := s.app.Close(); err != nil {
		s.ag.log.Warn("the session did not close cleanly", "session", s.id, "err", err)
	}
	s.turnMu.Unlock()
}
