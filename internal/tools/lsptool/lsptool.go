// Package lsptool is the lsp and lsp_rename tools, and the diagnostics a write
// reports: the model's access to the language servers internal/lsp supervises.
package lsptool

import (
	"context"
	_ "embed"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/gantry-dev/gantry/internal/lsp"
	"github.com/gantry-dev/gantry/internal/tool"
	"go.lsp.dev/jsonrpc2"
	"go.lsp.dev/protocol"
	"go.lsp.dev/uri"
)

//go:embed lsp.md
var lspDoc string

// Caps of the lists the tool returns.
const (
	maxReferences   = 50
	maxWorkspaceSym = 100
	maxDocumentSym  = 200
)

// queryTimeout bounds one query, the server's start included: a server that hangs
// is an error, not a call that never ends.
const queryTimeout = 60 * time.Second

// Options configure the tools.
type Options struct {
	// MaxOutput bounds a project check's result, in characters (0: 30000); past it,
	// its whole output is saved (tool.FitIn).
	MaxOutput int
}

// query is one file synced with its server.
type query struct {
	env   tool.Env
	c     *lsp.Client
	path  string
	shown string
	file  *fileText // as sent to the server (not to be modified)
	files *fileCache
	note  string
	ver   int32
	gen   int
}

// open checks file, finds and starts its server and syncs the file; on failure the
// result says why in one sentence. whole: the answer needs the server's view of the
// project, so a server that says it is ready only with the file's diagnostics
// (ReadyOnDiagnostics) is waited for; an answer from the document alone (its
// symbols) waits for nothing.
func open(ctx context.Context, m *lsp.Manager, env tool.Env, file string, whole bool) (*query, tool.Result) {
	path := env.Abs(file)
	shown := rel(env.Cwd, path)
	if !inside(path, env.Cwd) {
		return nil, tool.Fail(fmt.Sprintf("%s is outside the workspace %s; lsp only reads files inside it.", file, env.Cwd))
	}
	if err := env.CanRead(path); err != nil { // before the file is read or sent to a server
		return nil, tool.Fail(fmt.Sprintf("The language server was not asked: %s.", err))
	}
	files := filesOf(ctx, m)
	files.refresh()
	f, err := files.queried(path, env.Cwd)
	if err != nil {
		if os.IsNotExist(err) {
			return nil, tool.Fail(fmt.Sprintf("%s does not exist.", shown))
		}
		return nil, tool.Fail(fmt.Sprintf("%s cannot be read (%v).", shown, err))
	}
	t, ok, problem := m.For(path)
	if !ok {
		return nil, tool.Fail(problem + ` (lsp status says which servers can run.)`)
	}
	c, note, err := m.Client(ctx, t)
	if err != nil {
		return nil, tool.Fail(fmt.Sprintf("The %s language server could not start for %s: %v.", t.Spec.Name, rel(env.Cwd, t.Root), err))
	}
	v, gen, err := c.SyncText(ctx, path, f.data)
	if err != nil {
		return nil, tool.Fail(fmt.Sprintf("%s could not be sent to %s: %v.", shown, t.Spec.Name, err))
	}
	if whole && t.Spec.ReadyOnDiagnostics && gen < 0 {
		// Unchanged, but sent by a query that did not wait (symbols): wait now.
		if uv, ugen, ok := c.Unanswered(path); ok {
			v, gen = uv, ugen
		}
	}
	if whole && t.Spec.ReadyOnDiagnostics && gen >= 0 {
		// The server's answers are whole only once it has checked the file and ended
		// the work (an index) that began meanwhile.
		c.WaitDiagnostics(ctx, path, v, gen, lsp.ReadyWait)
		c.WaitIdle(ctx, lsp.ReadyWait)
	}
	return &query{env: env, c: c, path: path, shown: shown, file: f, files: files, note: note, ver: v, gen: gen}, tool.Result{}
}

func (q *query) doc() protocol.TextDocumentIdentifier {
	return protocol.TextDocumentIdentifier{URI: uri.File(q.path)}
}

func (q *query) posParams(pos protocol.Position) protocol.TextDocumentPositionParams {
	return protocol.TextDocumentPositionParams{TextDocument: q.doc(), Position: pos}
}

// lookup is an action that lists the locations a server gives for a position: its
// request, its LSP method (named when a server lacks it), what its list holds, and how
// many are shown (0: all).
type lookup struct {
	method, plural string
	limit          int
	ask            func(ctx context.Context, srv protocol.Server, pp protocol.TextDocumentPositionParams) ([]protocol.Location, error)
}

// locations answers the lookup of action at pos.
func (q *query) locations(ctx context.Context, action string, l lookup, pos protocol.Position) tool.Result {
	locs, err := l.ask(ctx, q.c.Server(), q.posParams(pos))
	if err != nil {
		if unsupported(err) {
			return tool.Result{Text: fmt.Sprintf("The %s language server offers no %s lookup (it does not implement textDocument/%s).",
				q.c.Spec().Name, strings.ReplaceAll(action, "_", " "), l.method)}
		}
		return tool.Fail(fmt.Sprintf("The language server could not answer %s: %v.", action, serverError(err)))
	}
	if len(locs) == 0 {
		return tool.Result{Text: fmt.Sprintf("The %s language server found no %s there.", q.c.Spec().Name, strings.ReplaceAll(action, "_", " "))}
	}
	text, summary := formatLocations(q.files, q.env, locs, l.limit, l.plural)
	return tool.Result{Text: text, Display: tool.Display{Note: summary}}
}

// unsupported says whether err is the server's "method not found".
func unsupported(err error) bool {
	var e *jsonrpc2.Error
	if errors.As(err, &e) && e.Code == jsonrpc2.MethodNotFound {
		return true
	}
	return strings.Contains(err.Error(), "Unhandled method")
}

// serverError is err for the model: a server's error message without the wrapping.
func serverError(err error) string { return strings.TrimSuffix(err.Error(), ".") }

// definitions is the locations of a definition-like answer, however the server
// shaped it.
func definitions(r protocol.DefinitionResult, err error) ([]protocol.Location, error) {
	return locations(r), err
}

func locations(r protocol.DefinitionResult) []protocol.Location {
	switch v := r.(type) {
	case *protocol.Location:
		if v != nil {
			return []protocol.Location{*v}
		}
	case protocol.LocationSlice:
		return v
	case protocol.DefinitionLinkSlice:
		out := make([]protocol.Location, len(v))
		for i, l := range v {
			out[i] = protocol.Location{URI: l.TargetURI, Range: l.TargetSelectionRange}
		}
		return out
	}
	return nil
}

func (q *query) hover(ctx context.Context, pp protocol.TextDocumentPositionParams) tool.Result {
	if q.env.Files != nil {
		// A hover quotes the symbol's declaration (a constant's value, its comment):
		// not from a file a rule denies reading.
		if r, err := q.c.Server().Definition(ctx, &protocol.DefinitionParams{TextDocumentPositionParams: pp}); err == nil {
			for _, l := range locations(r) {
				if err := q.env.CanRead(l.URI.Path()); err != nil {
					return tool.Fail(fmt.Sprintf("The hover is not shown, as it would quote the symbol's declaration: %s.", err))
				}
			}
		}
	}
	h, err := q.c.Server().Hover(ctx, &protocol.HoverParams{TextDocumentPositionParams: pp})
	if err != nil {
		return tool.Fail(fmt.Sprintf("The language server could not answer hover: %v.", serverError(err)))
	}
	if h == nil || h.Contents == nil {
		return tool.Result{Text: "The language server has nothing to say about that symbol."}
	}
	var parts []string
	switch c := h.Contents.(type) {
	case *protocol.MarkupContent:
		parts = append(parts, c.Value)
	case protocol.String:
		parts = append(parts, string(c))
	//lint:ignore SA1019 servers still send the deprecated form
	case *protocol.MarkedStringWithLanguage:
		parts = append(parts, c.Value)
	case protocol.MarkedStringSlice:
		for _, s := range c {
			parts = append(parts, fmt.Sprint(s))
		}
	}
	return tool.Result{Text: strings.TrimSpace(strings.Join(parts, "\n"))}
}

func (q *query) codeActions(ctx context.Context, pos protocol.Position) tool.Result {
	// The server's diagnostics of the line are the context quick fixes answer.
	ds, _ := q.c.WaitDiagnostics(ctx, q.path, q.ver, q.gen, time.Second*3)
	var here []protocol.Diagnostic
	for _, d := range ds {
		if d.Range.Start.Line <= pos.Line && pos.Line <= d.Range.End.Line {
			here = append(here, d)
		}
	}
	rng := protocol.Range{Start: protocol.Position{Line: pos.Line}, End: protocol.Position{Line: pos.Line + 1}}
	acts, err := q.c.Server().CodeAction(ctx, &protocol.CodeActionParams{TextDocument: q.doc(), Range: rng,
		Context: protocol.CodeActionContext{Diagnostics: here}})
	if err != nil {
		return tool.Fail(fmt.Sprintf("The language server could not answer code_actions: %v.", serverError(err)))
	}
	var lines []string
	for _, a := range acts {
		switch v := a.(type) {
		case *protocol.CodeAction:
			kind := ""
			if v.Kind != nil {
				kind = " [" + string(*v.Kind) + "]"
			}
			lines = append(lines, "- "+v.Title+kind)
		case *protocol.Command:
			lines = append(lines, "- "+v.Title+" [command]")
		}
	}
	if len(lines) == 0 {
		return tool.Result{Text: fmt.Sprintf("The %s language server offers no code action on line %d of %s.", q.c.Spec().Name, pos.Line+1, q.shown)}
	}
	return tool.Result{Text: fmt.Sprintf("Code actions on line %d of %s:\n%s", pos.Line+1, q.shown, strings.Join(lines, "\n"))}
}

// rel is p relative to cwd when inside it.
func rel(cwd, p string) string {
	if r, ok := under(p, cwd); ok {
		return r
	}
	if r, err := filepath.Rel(cwd, p); err == nil && r != ".." && !strings.HasPrefix(r, "../") {
		return r
	}
	return p
}

func inside(p, dir string) bool {
	if _, ok := under(p, dir); ok {
		return true
	}
	r, err := filepath.Rel(dir, p)
	return err == nil && r != ".." && !strings.HasPrefix(r, "../")
}

// under is p relative to dir when p is dir or below it, both clean absolute paths
// spelled alike (the common case, without filepath.Rel's work); ok false means "ask
// filepath.Rel".
func under(p, dir string) (string, bool) {
	if len(dir) < 2 || dir[0] != '/' || dir[len(dir)-1] == '/' || !strings.HasPrefix(p, dir) {
		return "", false
	}
	switch {
	case len(p) == len(dir):
		return ".", true
	case p[len(dir)] == '/' && cleanTail(p[len(dir):]):
		return p[len(dir)+1:], true
	}
	return "", false
}

// cleanTail says whether tail, the part of an absolute path after a clean folder
// (it begins with '/'), is as filepath.Clean leaves it: no empty, "." or ".." element
// and no '/' at its end. A scan, where Clean would build the path again to compare.
func cleanTail(tail string) bool {
	start := 1 // the element after each '/'
	for i := 1; i <= len(tail); i++ {
		if i < len(tail) && tail[i] != '/' {
			continue
		}
		switch tail[start:i] {
		case "", ".", "..":
			return false
		}
		start = i + 1
	}
	return true
}
