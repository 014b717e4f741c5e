// Command lsp measures a language server on its own, with no gantry in between: it
// starts the server, talks LSP to it over stdio (go.lsp.dev/jsonrpc2 and
// go.lsp.dev/protocol), waits until the server says it is ready, then times the
// first textDocument/definition on the cold server and a warm
// textDocument/references repeated -n times. These are the servers' own times,
// against which gantry's overhead is measured (docs/benchmarks.md).
//
//	go run ./bench/lsp -server gopls -root . -file internal/session/session.go -line 40 -symbol Store
//
// With -probe METHOD it sends one request instead and prints the answer as JSON (how
// the fixture projects of internal/lsp/testdata/projects were checked):
// definition, typeDefinition, implementation, references, hover, documentSymbol,
// workspaceSymbol (the query is -symbol), codeAction (on the symbol's range, with the
// diagnostics the server published) and rename (to -newname).
package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"time"

	"go.lsp.dev/jsonrpc2"
	"go.lsp.dev/protocol"
	"go.lsp.dev/uri"
)

func main() {
	server := flag.String("server", "gopls", "the server's command line (split on spaces), e.g. gopls, clangd-19, \"pyright-langserver --stdio\", \"typescript-language-server --stdio\"")
	root := flag.String("root", ".", "the workspace root")
	file := flag.String("file", "", "the file, relative to -root, to open")
	line := flag.Int("line", 0, "the 1-based line of the symbol in -file")
	symbol := flag.String("symbol", "", "the symbol on -line to ask about (its first occurrence on the line)")
	n := flag.Int("n", 20, "how many warm textDocument/references to time")
	ready := flag.Duration("ready", 2*time.Second, "with no progress reported for this long after the last one ended (or after initialized, when none began), the server counts as ready")
	timeout := flag.Duration("timeout", 3*time.Minute, "the longest the whole run may take")
	probe := flag.String("probe", "", "send one request of this method instead of measuring, and print its answer")
	newName := flag.String("newname", "Renamed", "the new name for -probe rename")
	settle := flag.Duration("settle", 0, "how long to wait before the warm loop, for background work after the open (gopls diagnoses the whole workspace) to finish")
	verbose := flag.Bool("v", false, "print the server's log and progress messages to stderr")
	flag.Parse()
	if *file == "" || *line < 1 || *symbol == "" {
		fmt.Fprintln(os.Stderr, "bench/lsp: -file, -line and -symbol are needed")
		flag.Usage()
		os.Exit(2)
	}
	ctx, cancel := context.WithTimeout(context.Background(), *timeout)
	defer cancel()
	if err := run(ctx, options{
		server: strings.Fields(*server), root: *root, file: *file, line: *line, symbol: *symbol,
		n: *n, quiet: *ready, probe: *probe, newName: *newName, verbose: *verbose, settle: *settle,
	}); err != nil {
		fmt.Fprintln(os.Stderr, "bench/lsp:", err)
		os.Exit(1)
	}
}

type options struct {
	server             []string
	root, file, symbol string
	line, n            int
	quiet, settle      time.Duration
	probe, newName     string
	verbose            bool
}

// stdio joins the server's standard output (read) and standard input (write).
type stdio struct {
	io.ReadCloser
	io.WriteCloser
}

func (s stdio) Close() error {
	return errors.Join(s.WriteCloser.Close(), s.ReadCloser.Close())
}

// client answers what servers ask of a client and follows their progress.
type client struct {
	protocol.UnimplementedClient
	verbose bool

	mu          sync.Mutex
	active      map[string]bool // progress tokens begun and not yet ended
	last        time.Time       // when progress last began or ended, or the file was opened
	lastEnd     time.Time       // when progress last ended
	diagnostics map[uri.URI][]protocol.Diagnostic
	diagnosed   map[uri.URI]time.Time // when each file's diagnostics first came
}

func (c *client) Configuration(_ context.Context, params *protocol.ConfigurationParams) ([]protocol.LSPAny, error) {
	out := make([]protocol.LSPAny, len(params.Items))
	for i := range out {
		out[i] = protocol.LSPAny("null")
	}
	return out, nil
}

func (c *client) WorkDoneProgressCreate(context.Context, *protocol.WorkDoneProgressCreateParams) error {
	return nil
}

func (c *client) RegisterCapability(context.Context, *protocol.RegistrationParams) error { return nil }

func (c *client) WorkspaceFolders(context.Context) ([]protocol.WorkspaceFolder, error) {
	return nil, nil
}

func (c *client) ApplyEdit(context.Context, *protocol.ApplyWorkspaceEditParams) (*protocol.ApplyWorkspaceEditResult, error) {
	return &protocol.ApplyWorkspaceEditResult{Applied: false}, nil
}

func (c *client) LogMessage(_ context.Context, params *protocol.LogMessageParams) error {
	if c.verbose {
		fmt.Fprintf(os.Stderr, "log: %s\n", strings.TrimSpace(params.Message))
	}
	return nil
}

func (c *client) ShowMessage(_ context.Context, params *protocol.ShowMessageParams) error {
	if c.verbose {
		fmt.Fprintf(os.Stderr, "message: %s\n", strings.TrimSpace(params.Message))
	}
	return nil
}

func (c *client) PublishDiagnostics(_ context.Context, params *protocol.PublishDiagnosticsParams) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	if _, ok := c.diagnosed[params.URI]; !ok {
		c.diagnosed[params.URI] = time.Now()
	}
	d, err := protocol.Clone(params.Diagnostics)
	if err == nil {
		c.diagnostics[params.URI] = d
	}
	return nil
}

func (c *client) Progress(_ context.Context, params *protocol.ProgressParams) error {
	var v struct {
		Kind, Title, Message string
	}
	if err := json.Unmarshal(params.Value, &v); err != nil {
		return nil
	}
	token := fmt.Sprint(params.Token)
	c.mu.Lock()
	defer c.mu.Unlock()
	switch v.Kind {
	case "begin":
		c.active[token] = true
		c.last = time.Now()
	case "end":
		delete(c.active, token)
		c.last = time.Now()
		c.lastEnd = c.last
	}
	if c.verbose {
		fmt.Fprintf(os.Stderr, "progress %s %s: %s %s\n", token, v.Kind, v.Title, v.Message)
	}
	return nil
}

// waitReady returns when no progress is under way and none has begun or ended for
// quiet: a server that reports its loading (gopls, clangd, typescript-language-server)
// is ready when the last of it ended.
func (c *client) waitReady(ctx context.Context, quiet time.Duration) error {
	for {
		c.mu.Lock()
		idle := len(c.active) == 0 && time.Since(c.last) >= quiet
		c.mu.Unlock()
		if idle {
			return nil
		}
		select {
		case <-ctx.Done():
			return fmt.Errorf("waiting for the server to be ready: %w", ctx.Err())
		case <-time.After(20 * time.Millisecond):
		}
	}
}

// waitDiagnostics returns when the server has published diagnostics for doc (an
// empty list counts), or the zero time after limit.
func (c *client) waitDiagnostics(ctx context.Context, doc uri.URI, limit time.Duration) time.Time {
	deadline := time.Now().Add(limit)
	for time.Now().Before(deadline) && ctx.Err() == nil {
		c.mu.Lock()
		at, ok := c.diagnosed[doc]
		c.mu.Unlock()
		if ok {
			return at
		}
		time.Sleep(10 * time.Millisecond)
	}
	return time.Time{}
}

func languageID(path string) protocol.LanguageKind {
	switch filepath.Ext(path) {
	case ".go":
		return "go"
	case ".py":
		return "python"
	case ".ts":
		return "typescript"
	case ".tsx":
		return "typescriptreact"
	case ".js":
		return "javascript"
	case ".c", ".h":
		return "c"
	case ".cc", ".cpp", ".hpp":
		return "cpp"
	case ".rs":
		return "rust"
	}
	return "plaintext"
}

func run(ctx context.Context, o options) error {
	root, err := filepath.Abs(o.root)
	if err != nil {
		return err
	}
	path := filepath.Join(root, o.file)
	text, err := os.ReadFile(path)
	if err != nil {
		return err
	}
	lines := strings.Split(string(text), "\n")
	if o.line > len(lines) {
		return fmt.Errorf("%s has %d lines", o.file, len(lines))
	}
	col := strings.Index(lines[o.line-1], o.symbol)
	if col < 0 {
		return fmt.Errorf("%s:%d has no %q", o.file, o.line, o.symbol)
	}
	// The fixtures and this repository are ASCII on those lines, so bytes are UTF-16 units.
	pos := protocol.Position{Line: uint32(o.line - 1), Character: uint32(col)}
	docURI := uri.File(path)
	rootURI := uri.File(root)

	prog := o.server[0]
	if strings.ContainsRune(prog, filepath.Separator) {
		// A path is the caller's, not relative to the root the server runs in.
		if prog, err = filepath.Abs(prog); err != nil {
			return err
		}
	}
	cmd := exec.Command(prog, o.server[1:]...)
	cmd.Dir = root
	if o.verbose {
		cmd.Stderr = os.Stderr
	}
	stdin, err := cmd.StdinPipe()
	if err != nil {
		return err
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		return err
	}
	start := time.Now()
	if err := cmd.Start(); err != nil {
		return err
	}
	defer func() { _ = cmd.Process.Kill(); _ = cmd.Wait() }()

	cl := &client{verbose: o.verbose, active: map[string]bool{}, last: time.Now(), diagnostics: map[uri.URI][]protocol.Diagnostic{}, diagnosed: map[uri.URI]time.Time{}}
	ctx, conn, server := protocol.NewClient(ctx, cl, jsonrpc2.NewStream(stdio{stdout, stdin}))
	defer conn.Close()

	yes := true
	pid := int32(os.Getpid())
	init, err := server.Initialize(ctx, &protocol.InitializeParams{
		ProcessID:  &pid,
		ClientInfo: protocol.ClientInfo{Name: "gantry-bench-lsp"},
		//lint:ignore SA1019 servers still read rootUri, and a null one means no folder to some
		RootURI: &rootURI,
		WorkspaceFoldersInitializeParams: protocol.WorkspaceFoldersInitializeParams{
			WorkspaceFolders: protocol.NewNullable([]protocol.WorkspaceFolder{{URI: rootURI, Name: filepath.Base(root)}}),
		},
		Capabilities: protocol.ClientCapabilities{
			Workspace: &protocol.WorkspaceClientCapabilities{Configuration: &yes, WorkspaceFolders: &yes},
			Window:    &protocol.WindowClientCapabilities{WorkDoneProgress: &yes},
			TextDocument: &protocol.TextDocumentClientCapabilities{
				PublishDiagnostics: &protocol.PublishDiagnosticsClientCapabilities{},
			},
		},
	})
	if err != nil {
		return fmt.Errorf("initialize: %w", err)
	}
	initialized := time.Since(start)
	if err := server.Initialized(ctx, &protocol.InitializedParams{}); err != nil {
		return fmt.Errorf("initialized: %w", err)
	}
	if err := server.DidOpen(ctx, &protocol.DidOpenTextDocumentParams{TextDocument: protocol.TextDocumentItem{
		URI: docURI, LanguageID: languageID(path), Version: 1, Text: string(text),
	}}); err != nil {
		return fmt.Errorf("didOpen: %w", err)
	}
	// The quiet wait starts from the open: some servers (typescript-language-server)
	// begin their progress only once a file is open.
	cl.mu.Lock()
	cl.last = time.Now()
	cl.mu.Unlock()
	if err := cl.waitReady(ctx, o.quiet); err != nil {
		return err
	}
	// Ready when the last progress ended (the quiet wait after it is not the server's).
	cl.mu.Lock()
	readyAt, readyHow := cl.lastEnd.Sub(start), "ready: last progress end (from start)"
	if cl.lastEnd.IsZero() {
		readyAt, readyHow = time.Since(start), "ready: no progress, quiet wait ended"
	}
	cl.mu.Unlock()
	at := protocol.TextDocumentPositionParams{TextDocument: protocol.TextDocumentIdentifier{URI: docURI}, Position: pos}

	if o.probe != "" {
		return doProbe(ctx, server, cl, o, at, lines[o.line-1])
	}

	t := time.Now()
	def, err := server.Definition(ctx, &protocol.DefinitionParams{TextDocumentPositionParams: at})
	if err != nil {
		return fmt.Errorf("definition: %w", err)
	}
	firstDef := time.Since(t)

	refParams := &protocol.ReferenceParams{TextDocumentPositionParams: at, Context: protocol.ReferenceContext{IncludeDeclaration: true}}
	t = time.Now()
	if _, err := server.References(ctx, refParams); err != nil {
		return fmt.Errorf("references: %w", err)
	}
	firstRefs := time.Since(t)
	// The warm loop starts once the server has published the file's diagnostics
	// (gopls diagnoses the workspace after a didOpen, and that work would otherwise
	// run under the first timed requests).
	diagAt := cl.waitDiagnostics(ctx, docURI, 30*time.Second).Sub(start)
	time.Sleep(o.settle)
	var times []time.Duration
	var refs int
	for range o.n {
		t := time.Now()
		locs, err := server.References(ctx, refParams)
		if err != nil {
			return fmt.Errorf("references: %w", err)
		}
		times = append(times, time.Since(t))
		refs = len(locs)
	}
	slices.Sort(times)

	name := init.ServerInfo.Name
	if v, ok := init.ServerInfo.Version.Get(); ok {
		// gopls sends its build information as JSON; its "Version" is what counts.
		var build struct{ Version string }
		if json.Unmarshal([]byte(v), &build) == nil && build.Version != "" {
			v = build.Version
		}
		name += " " + v
	}
	if name == "" {
		name = filepath.Base(o.server[0])
	}
	fmt.Printf("server      %s\n", name)
	fmt.Printf("position    %s:%d %s\n", o.file, o.line, o.symbol)
	fmt.Printf("%-40s %10s\n", "step", "time")
	fmt.Printf("%-40s %10s\n", "initialize (from start)", ms(initialized))
	fmt.Printf("%-40s %10s\n", readyHow, ms(readyAt))
	fmt.Printf("%-40s %10s  (%d locations)\n", "first definition, cold", ms(firstDef), countLocations(def))
	fmt.Printf("%-40s %10s\n", "first references (then warm)", ms(firstRefs))
	if diagAt > 0 {
		fmt.Printf("%-40s %10s\n", "file's diagnostics (from start)", ms(diagAt))
	}
	if len(times) > 0 {
		fmt.Printf("%-40s %10s  (%d locations; min %s, max %s)\n", fmt.Sprintf("references, warm, median of %d", len(times)),
			ms(times[len(times)/2]), refs, ms(times[0]), ms(times[len(times)-1]))
	}
	sctx, scancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer scancel()
	if err := server.Shutdown(sctx); err == nil {
		_ = server.Exit(sctx)
	}
	return nil
}

func ms(d time.Duration) string { return fmt.Sprintf("%.1f ms", float64(d.Microseconds())/1000) }

func countLocations(r protocol.DefinitionResult) int {
	switch v := r.(type) {
	case *protocol.Location:
		if v != nil {
			return 1
		}
	case protocol.LocationSlice:
		return len(v)
	case protocol.DefinitionLinkSlice:
		return len(v)
	}
	return 0
}

func doProbe(ctx context.Context, server protocol.Server, cl *client, o options, at protocol.TextDocumentPositionParams, line string) error {
	var result any
	var err error
	switch o.probe {
	case "definition":
		result, err = server.Definition(ctx, &protocol.DefinitionParams{TextDocumentPositionParams: at})
	case "typeDefinition":
		result, err = server.TypeDefinition(ctx, &protocol.TypeDefinitionParams{TextDocumentPositionParams: at})
	case "implementation":
		result, err = server.Implementation(ctx, &protocol.ImplementationParams{TextDocumentPositionParams: at})
	case "references":
		result, err = server.References(ctx, &protocol.ReferenceParams{TextDocumentPositionParams: at, Context: protocol.ReferenceContext{IncludeDeclaration: true}})
	case "hover":
		result, err = server.Hover(ctx, &protocol.HoverParams{TextDocumentPositionParams: at})
	case "documentSymbol":
		result, err = server.DocumentSymbol(ctx, &protocol.DocumentSymbolParams{TextDocument: at.TextDocument})
	case "workspaceSymbol":
		result, err = server.Symbols(ctx, &protocol.WorkspaceSymbolParams{Query: o.symbol})
	case "rename":
		result, err = server.Rename(ctx, &protocol.RenameParams{TextDocumentPositionParams: at, NewName: o.newName})
	case "codeAction":
		rng := protocol.Range{Start: at.Position, End: protocol.Position{Line: at.Position.Line, Character: at.Position.Character + uint32(len(o.symbol))}}
		// Diagnostics may come a little after the server is idle; give them a moment.
		var diags []protocol.Diagnostic
		for range 50 {
			cl.mu.Lock()
			diags = cl.diagnostics[at.TextDocument.URI]
			cl.mu.Unlock()
			if len(diags) > 0 {
				break
			}
			time.Sleep(100 * time.Millisecond)
		}
		var here []protocol.Diagnostic
		for _, d := range diags {
			if d.Range.Start.Line <= rng.Start.Line && d.Range.End.Line >= rng.Start.Line {
				here = append(here, d)
			}
		}
		result, err = server.CodeAction(ctx, &protocol.CodeActionParams{TextDocument: at.TextDocument, Range: rng, Context: protocol.CodeActionContext{Diagnostics: here}})
	default:
		return fmt.Errorf("-probe %s: not a method this client knows", o.probe)
	}
	if err != nil {
		return fmt.Errorf("%s: %w", o.probe, err)
	}
	out, err := protocol.Marshal(result)
	if err != nil {
		return err
	}
	var pretty any
	if json.Unmarshal(out, &pretty) == nil {
		out, _ = json.MarshalIndent(pretty, "", "  ")
	}
	fmt.Printf("%s at %s:%d %q (%s)\n%s\n", o.probe, o.file, o.line, o.symbol, strings.TrimSpace(line), out)
	return nil
}
