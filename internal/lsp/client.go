package lsp

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
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

// publishSettle is how long WaitDiagnostics waits, after a publish from a server
// that sends no versions, for another one: such a server may publish a document's
// diagnostics in parts (typescript-language-server: the syntactic check, then the
// semantic one), and the last publish within the settle is taken as the whole.
const publishSettle = 300 * time.Millisecond

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

// published is the last diagnostics a server published for a document.
type published struct {
	version int32 // -1: the server sent none
	gen     int   // counts publishes for the document
	diags   []protocol.Diagnostic
}

// doc is a document the client has opened.
type doc struct {
	version  int32
	text     string
	gen      int  // the count of publishes for it when this version was sent
	answered bool // WaitDiagnostics had this version's diagnostics
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
func (p pipe) Close() error                { return errors.Join(p.w.Close(), p.ReadCloser.Close()) }

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

// Opened counts the documents the client has opened.
func (c *Client) Opened() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return len(c.docs)
}

// Spec is the server's row of the table.
func (c *Client) Spec() Spec { return c.spec }

// Root is the folder the server serves.
func (c *Client) Root() string { return c.root }

// Server is the typed access to the server's requests.
func (c *Client) Server() protocol.Server { return c.srv }

// WaitReady waits, at most d, for the server to say it is ready: the end of a
// progress or the first diagnostics. A server that says nothing is taken as ready.
func (c *Client) WaitReady(ctx context.Context, d time.Duration) {
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

// Sync makes the server's copy of path its content on disk (didOpen the first time,
// didChange and didSave after), and returns the document's version and the count of
// publishes for it before the sync, for WaitDiagnostics.
func (c *Client) Sync(ctx context.Context, path string) (version int32, gen int, err error) {
	text, err := os.ReadFile(path)
	if err != nil {
		return 0, 0, err
	}
	return c.SyncText(ctx, path, text)
}

// SyncText is Sync with the file's content already read (text is not kept: the
// client copies what it sends).
func (c *Client) SyncText(ctx context.Context, path string, text []byte) (version int32, gen int, err error) {
	u := uri.File(path)
	c.mu.Lock()
	d := c.docs[path]
	gen = c.diags[path].gen
	if d != nil && d.text == string(text) {
		v := d.version
		c.mu.Unlock()
		return v, -1, nil // unchanged: what was published stands
	}
	if d == nil {
		d = &doc{version: 1, text: string(text), gen: gen}
		c.docs[path] = d
		c.mu.Unlock()
		c.emit(EventSync, path, 1, 0)
		err = c.srv.DidOpen(ctx, &protocol.DidOpenTextDocumentParams{TextDocument: protocol.TextDocumentItem{
			URI: u, LanguageID: protocol.LanguageKind(c.spec.languageID(path)), Version: 1, Text: string(text)}})
		return 1, gen, err
	}
	d.version++
	d.text = string(text)
	d.gen, d.answered = gen, false
	v := d.version
	c.mu.Unlock()
	c.emit(EventSync, path, v, 0)
	err = c.srv.DidChange(ctx, &protocol.DidChangeTextDocumentParams{
		TextDocument:   protocol.VersionedTextDocumentIdentifier{TextDocumentIdentifier: protocol.TextDocumentIdentifier{URI: u}, Version: v},
		ContentChanges: []protocol.TextDocumentContentChangeEvent{&protocol.TextDocumentContentChangeWholeDocument{Text: string(text)}}})
	if err == nil {
		err = c.srv.DidSave(ctx, &protocol.DidSaveTextDocumentParams{TextDocument: protocol.TextDocumentIdentifier{URI: u}})
	}
	return v, gen, err
}

// WaitDiagnostics returns the diagnostics of path for version (Sync's), waiting at
// most d: it follows the server's pace, ending as soon as the server has published for
// that version.
//
//   - A server that sends versions: the first publish of that version or later.
//   - A server that sends none: the first publish after gen, then the last of those
//     that follow it within publishSettle of each other (a server may publish in
//     parts). A server with a CleanProbe is asked how many diagnostics the file has:
//     none, nothing is waited for; some, the publish of that many is the one.
//   - gen -1 means nothing changed since the last sync: when a wait already had this
//     version's diagnostics, the last publish (none: no diagnostics) is returned at
//     once; else the last publish, if any, unless the server sends versions and that
//     publish is of an older version, which is then waited for.
//
// ok is false when none came within d. (A versionless server's publish already taken
// when d runs out is returned, with ok.)
func (c *Client) WaitDiagnostics(ctx context.Context, path string, version int32, gen int, d time.Duration) (diags []protocol.Diagnostic, ok bool) {
	c.emit(EventWait, path, version, 0)
	if gen < 0 {
		// Unchanged and already had: what was published since stands, and a server
		// that published nothing for it (a clean file) will not publish now.
		c.mu.Lock()
		doc, p := c.docs[path], c.diags[path]
		c.mu.Unlock()
		if doc != nil && doc.answered && doc.version == version {
			return p.diags, true
		}
	}
	diags, ok = c.waitDiagnostics(ctx, path, version, gen, d)
	if ok {
		c.mu.Lock()
		if doc := c.docs[path]; doc != nil && doc.version == version {
			doc.answered = true
		}
		c.mu.Unlock()
	}
	return diags, ok
}

// Unanswered says whether path's current version has been sent and its diagnostics
// not yet had by WaitDiagnostics, with what WaitDiagnostics needs to wait for them:
// for a query that needs the server to have checked the file, after a Sync that found
// nothing to send (another query opened the file without waiting).
func (c *Client) Unanswered(path string) (version int32, gen int, unanswered bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	d := c.docs[path]
	if d == nil || d.answered {
		return 0, 0, false
	}
	return d.version, d.gen, true
}

func (c *Client) waitDiagnostics(ctx context.Context, path string, version int32, gen int, d time.Duration) (diags []protocol.Diagnostic, ok bool) {
	t := time.NewTimer(d)
	defer t.Stop()
	want := -1 // the count of diagnostics the probe found (-1: no probe)
	if gen >= 0 && c.spec.CleanProbe != "" {
		// Asked also on a file's first open: typescript-language-server can publish
		// the syntactic check (often empty) before the semantic one, and under load
		// the two come apart; the probe's count says which publish is the whole.
		pctx, cancel := context.WithTimeout(ctx, d)
		n, err := c.probe(pctx, path)
		cancel()
		if err == nil && n == 0 {
			// The server publishes nothing, or an empty list later: the file's
			// diagnostics are none from now, so that the next write's "before" is not
			// the list of a version the server has not yet said it dropped.
			c.mu.Lock()
			if p := c.diags[path]; p.version < 0 && len(p.diags) > 0 {
				c.diags[path] = published{version: -1, gen: p.gen}
			}
			c.mu.Unlock()
			return nil, true
		}
		if err == nil {
			want = n
		}
	}
	var settled <-chan time.Time // runs from the last publish taken of a versionless server
	var taken *published         // that publish
	for {
		c.mu.Lock()
		p, have := c.diags[path]
		ch := c.changed
		c.mu.Unlock()
		switch {
		case !have:
		case p.version >= 0 && p.version >= version:
			return p.diags, true
		case p.version < 0 && gen < 0:
			return p.diags, true
		case p.version < 0 && p.gen > gen:
			// A server without versions may publish, after the change, what it
			// computed before it (a debounced publish): with a probe's count, only the
			// publish of that many is the new version's.
			if want >= 0 && len(p.diags) == want {
				return p.diags, true
			}
			if taken == nil || p.gen > taken.gen {
				taken = &p
				if want < 0 { // with a probe's count, its publish is waited for
					settle := time.NewTimer(publishSettle)
					defer settle.Stop()
					settled = settle.C
				}
			}
		}
		select {
		case <-ch:
		case <-settled:
			return taken.diags, true
		case <-t.C:
			if taken != nil {
				return taken.diags, true
			}
			return nil, false
		case <-c.dead:
			return nil, false
		case <-ctx.Done():
			return nil, false
		}
	}
}

// probe asks the server, with its CleanProbe, how many diagnostics path has now.
func (c *Client) probe(ctx context.Context, path string) (int, error) {
	n := 0
	switch c.spec.CleanProbe {
	case ProbeTSServer:
		for _, cmd := range []string{"syntacticDiagnosticsSync", "semanticDiagnosticsSync", "suggestionDiagnosticsSync"} {
			args, err := json.Marshal([]any{cmd, map[string]any{"file": path}, map[string]any{"lowPriority": false}})
			if err != nil {
				return 0, err
			}
			var list []protocol.LSPAny
			if err := json.Unmarshal(args, &list); err != nil {
				return 0, err
			}
			res, err := c.srv.ExecuteCommand(ctx, &protocol.ExecuteCommandParams{Command: "typescript.tsserverRequest", Arguments: list})
			if err != nil {
				return 0, err
			}
			var reply struct {
				Success *bool             `json:"success"`
				Body    []json.RawMessage `json:"body"`
			}
			if err := json.Unmarshal(res, &reply); err != nil || reply.Success == nil {
				return 0, fmt.Errorf("tsserver's %s answered %.80s", cmd, res)
			}
			if !*reply.Success {
				return 0, fmt.Errorf("tsserver's %s failed", cmd)
			}
			n += len(reply.Body)
		}
		return n, nil
	}
	return 0, fmt.Errorf("unknown clean probe %q", c.spec.CleanProbe)
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

// handler answers what the server asks and hears what it tells.
type handler struct {
	protocol.UnimplementedClient
	c *Client
}

func (h handler) Progress(_ context.Context, p *protocol.ProgressParams) error {
	var v struct {
		Kind string `json:"kind"`
	}
	if json.Unmarshal(p.Value, &v) != nil {
		return nil
	}
	c := h.c
	tok := fmt.Sprint(p.Token)
	switch v.Kind {
	case "begin":
		c.mu.Lock()
		c.working[tok] = true
		c.mu.Unlock()
	case "end":
		c.mu.Lock()
		delete(c.working, tok)
		close(c.changed)
		c.changed = make(chan struct{})
		c.mu.Unlock()
		c.markReady()
	}
	return nil
}

// WaitIdle waits, at most d, until no progress the server began is still running
// (clangd's background index, for one): a query then sees the whole project.
func (c *Client) WaitIdle(ctx context.Context, d time.Duration) {
	t := time.NewTimer(d)
	defer t.Stop()
	for {
		c.mu.Lock()
		busy := len(c.working) > 0
		ch := c.changed
		c.mu.Unlock()
		if !busy {
			return
		}
		select {
		case <-ch:
		case <-t.C:
			return
		case <-c.dead:
			return
		case <-ctx.Done():
			return
		}
	}
}

func (h handler) PublishDiagnostics(_ context.Context, p *protocol.PublishDiagnosticsParams) error {
	c := h.c
	c.mu.Lock()
	path := p.URI.Path()
	prev := c.diags[path]
	v := int32(-1)
	if x, ok := p.Version.Get(); ok {
		v = x
	}
	c.diags[path] = published{version: v, gen: prev.gen + 1, diags: p.Diagnostics}
	close(c.changed)
	c.changed = make(chan struct{})
	c.mu.Unlock()
	c.emit(EventPublish, path, v, len(p.Diagnostics))
	c.markReady()
	return nil
}

// Configuration answers one null per item: the server's defaults.
func (handler) Configuration(_ context.Context, p *protocol.ConfigurationParams) ([]protocol.LSPAny, error) {
	out := make([]protocol.LSPAny, len(p.Items))
	for i := range out {
		out[i] = protocol.LSPAny("null")
	}
	return out, nil
}

func (handler) WorkDoneProgressCreate(context.Context, *protocol.WorkDoneProgressCreateParams) error {
	return nil
}
func (handler) RegisterCapability(context.Context, *protocol.RegistrationParams) error { return nil }
func (handler) UnregisterCapability(context.Context, *protocol.UnregistrationParams) error {
	return nil
}
func (handler) LogMessage(context.Context, *protocol.LogMessageParams) error         { return nil }
func (handler) ShowMessage(context.Context, *protocol.ShowMessageParams) error       { return nil }
func (handler) WorkspaceFolders(context.Context) ([]protocol.WorkspaceFolder, error) { return nil, nil }

// ApplyEdit refuses: edits go through lsp_rename, which applies them itself.
func (handler) ApplyEdit(context.Context, *protocol.ApplyWorkspaceEditParams) (*protocol.ApplyWorkspaceEditResult, error) {
	return &protocol.ApplyWorkspaceEditResult{Applied: false}, nil
}

// serverWidening is what a language server needs beyond a command's sandbox: the
// user's cache folder (gopls's and clangd's indexes, wherever XDG_CACHE_HOME puts it).
func serverWidening() *contain.Widening {
	w := &contain.Widening{Why: "language server caches"}
	if d, err := os.UserCacheDir(); err == nil {
		w.Writable = append(w.Writable, d)
	}
	return w
}
