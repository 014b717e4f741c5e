package lsptool

import (
	"bytes"
	"cmp"
	"context"
	"fmt"
	"io/fs"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/gantry-dev/gantry/internal/contain"
	"github.com/gantry-dev/gantry/internal/lsp"
	"github.com/gantry-dev/gantry/internal/tool"
	"go.lsp.dev/protocol"
	"go.lsp.dev/uri"
)

// checkerTimeout bounds a project checker.
const checkerTimeout = 5 * time.Minute

// formatLocations is `path:line: text` per location, sorted and deduplicated, cut at
// limit (0: no cap) with a line saying so, and a one-line summary for faces ("27
// references in 9 files"; "" for a single line). The lines are read after the answer
// came (files.refresh), from the process's file cache. A file env's guard denies reading is listed without its lines.
func formatLocations(files *fileCache, env tool.Env, locs []protocol.Location, limit int, what string) (out, summary string) {
	cwd := env.Cwd
	files.refresh()
	slices.SortStableFunc(locs, func(a, b protocol.Location) int {
		if c := strings.Compare(string(a.URI), string(b.URI)); c != 0 {
			return c
		}
		return cmp.Compare(a.Range.Start.Line, b.Range.Start.Line)
	})
	var (
		b      strings.Builder
		n      int
		nfiles int
		shown  string
		text   *fileText
		hidden error // reading the file is denied: its lines are not shown
		prev   *protocol.Location
	)
	b.Grow(128 * min(len(locs), max(limit, 1))) // a line of code and its place: one allocation, not a regrowth
	for i := range locs {
		l := &locs[i]
		newFile := prev == nil || prev.URI != l.URI
		if !newFile && prev.Range.Start.Line == l.Range.Start.Line {
			continue // sorted: a location on a line already listed is next to it
		}
		prev = l
		if newFile {
			nfiles++
		}
		if n++; limit > 0 && n > limit {
			continue
		}
		if newFile { // (a file's first location is within the limit when any is)
			p := l.URI.Path()
			shown = rel(cwd, p)
			if hidden = env.CanRead(p); hidden == nil { // asked before the file is read
				text = files.text(p)
			}
		}
		if b.Len() > 0 {
			b.WriteByte('\n')
		}
		b.WriteString(shown)
		b.WriteByte(':')
		b.WriteString(strconv.Itoa(int(l.Range.Start.Line) + 1))
		b.WriteString(": ")
		if hidden != nil {
			b.WriteString(notShown(hidden))
			continue
		}
		b.Write(bytes.TrimSpace(text.lineBytes(int(l.Range.Start.Line))))
	}
	if limit > 0 && n > limit {
		fmt.Fprintf(&b, "\n(%d %s; the first %d are shown.)", n, what, limit)
	}
	if n > 1 {
		summary = strconv.Itoa(n) + " " + what + " in " + strconv.Itoa(nfiles) + " file(s)"
	}
	return b.String(), summary
}

// severity names a diagnostic's severity.
func severity(s protocol.DiagnosticSeverity) string {
	switch s {
	case protocol.DiagnosticSeverityError:
		return "error"
	case protocol.DiagnosticSeverityWarning:
		return "warning"
	case protocol.DiagnosticSeverityInformation:
		return "info"
	case protocol.DiagnosticSeverityHint:
		return "hint"
	}
	return "error"
}

// message is a diagnostic's message as text.
func message(d protocol.Diagnostic) string {
	switch m := d.Message.(type) {
	case protocol.String:
		return string(m)
	case *protocol.MarkupContent:
		return m.Value
	}
	return fmt.Sprint(d.Message)
}

// code is a diagnostic's code as text ("" when none).
func code(d protocol.Diagnostic) string {
	switch c := d.Code.(type) {
	case protocol.String:
		return string(c)
	case protocol.Integer:
		return fmt.Sprint(int32(c))
	}
	return ""
}

// formatDiagnostic is `path:line: severity: message [code]`.
func formatDiagnostic(shown string, d protocol.Diagnostic) string {
	s := fmt.Sprintf("%s:%d: %s: %s", shown, d.Range.Start.Line+1, severity(d.Severity), strings.TrimSpace(message(d)))
	if c := code(d); c != "" {
		s += " [" + c + "]"
	}
	return s
}

func (q *query) diagnostics(ctx context.Context, m *lsp.Manager) tool.Result {
	ds, ok := q.c.WaitDiagnostics(ctx, q.path, q.ver, q.gen, m.DiagnosticsWait())
	if !ok {
		return tool.Result{Text: fmt.Sprintf("%s gave no diagnostics for %s within %s; they may still come (it may be loading the project): call lsp diagnostics again.",
			q.c.Spec().Name, q.shown, m.DiagnosticsWait())}
	}
	if len(ds) == 0 {
		return tool.Result{Text: fmt.Sprintf("%s has no diagnostics.", q.shown)}
	}
	lines := make([]string, len(ds))
	for i, d := range ds {
		lines[i] = formatDiagnostic(q.shown, d)
	}
	return tool.Result{Text: strings.Join(lines, "\n")}
}

func (q *query) documentSymbols(ctx context.Context) tool.Result {
	r, err := q.c.Server().DocumentSymbol(ctx, &protocol.DocumentSymbolParams{TextDocument: q.doc()})
	if err != nil {
		return tool.Fail(fmt.Sprintf("The language server could not list the symbols of %s: %v.", q.shown, serverError(err)))
	}
	// Written into one buffer, a line per symbol: `path:line: <indent>kind name`.
	var b strings.Builder
	n := 0
	add := func(line uint32, depth int, k protocol.SymbolKind, name string) {
		if n++; n > maxDocumentSym {
			return
		}
		if b.Len() > 0 {
			b.WriteByte('\n')
		}
		b.WriteString(q.shown)
		b.WriteByte(':')
		b.WriteString(strconv.FormatUint(uint64(line)+1, 10))
		b.WriteString(": ")
		for range depth {
			b.WriteString("  ")
		}
		b.WriteString(kind(k))
		b.WriteByte(' ')
		b.WriteString(name)
	}
	var walk func(ss []protocol.DocumentSymbol, depth int)
	walk = func(ss []protocol.DocumentSymbol, depth int) {
		for i := range ss {
			s := &ss[i]
			add(s.SelectionRange.Start.Line, depth, s.Kind, s.Name)
			walk(s.Children, depth+1)
		}
	}
	switch v := r.(type) {
	case protocol.DocumentSymbolSlice:
		b.Grow(48 * min(len(v), maxDocumentSym))
		walk(v, 0)
	case protocol.SymbolInformationSlice:
		b.Grow(48 * min(len(v), maxDocumentSym))
		for i := range v {
			add(v[i].Location.Range.Start.Line, 0, v[i].Kind, v[i].Name)
		}
	}
	if n == 0 {
		return tool.Result{Text: fmt.Sprintf("%s has no symbols.", q.shown)}
	}
	if n > maxDocumentSym {
		fmt.Fprintf(&b, "\n(%d symbols; the first %d are shown.)", n, maxDocumentSym)
	}
	return tool.Result{Text: b.String()}
}

func workspaceSymbols(ctx context.Context, m *lsp.Manager, env tool.Env, query string) tool.Result {
	ts := m.Workspace(env.Cwd)
	if len(ts) == 0 {
		return tool.Fail("No language server can serve this workspace: " + strings.Join(m.Status(env.Cwd), "; ") + ".")
	}
	var lines, notes []string
	denied := map[string]error{} // files whose symbols are left out, by path shown
	for _, t := range ts {
		c, note, err := m.Client(ctx, t)
		if err != nil {
			notes = append(notes, fmt.Sprintf("(%s could not start: %v.)", t.Spec.Name, err))
			continue
		}
		if note != "" {
			notes = append(notes, note)
		}
		if t.Spec.ReadyOnDiagnostics && c.Opened() == 0 {
			warmUp(ctx, c, t)
		}
		r, err := c.Server().Symbols(ctx, &protocol.WorkspaceSymbolParams{Query: query})
		if err != nil {
			notes = append(notes, fmt.Sprintf("(%s could not search symbols: %v.)", t.Spec.Name, serverError(err)))
			continue
		}
		add := func(name string, k protocol.SymbolKind, cont *string, u uri.URI, line uint32) {
			container := ""
			if cont != nil {
				container = *cont
			}
			p := u.Path()
			if !inside(p, env.Cwd) {
				return // the standard library and module cache are not the workspace
			}
			if err := env.CanRead(p); err != nil {
				denied[rel(env.Cwd, p)] = err // a symbol's name is the file's content
				return
			}
			s := fmt.Sprintf("%s:%d: %s %s", rel(env.Cwd, p), line+1, kind(k), name)
			if container != "" {
				s += " (in " + container + ")"
			}
			lines = append(lines, s)
		}
		switch v := r.(type) {
		case protocol.SymbolInformationSlice:
			for _, s := range v {
				add(s.Name, s.Kind, s.ContainerName, s.Location.URI, s.Location.Range.Start.Line)
			}
		case protocol.WorkspaceSymbolSlice:
			for _, s := range v {
				switch l := s.Location.(type) {
				case *protocol.Location:
					add(s.Name, s.Kind, s.ContainerName, l.URI, l.Range.Start.Line)
				case *protocol.LocationUriOnly:
					add(s.Name, s.Kind, s.ContainerName, l.URI, 0)
				}
			}
		}
	}
	if len(lines) > maxWorkspaceSym {
		n := len(lines)
		lines = append(lines[:maxWorkspaceSym], fmt.Sprintf("(%d symbols; the first %d are shown.)", n, maxWorkspaceSym))
	}
	if len(lines) == 0 {
		lines = []string{fmt.Sprintf("No symbol of the workspace matches %q.", query)}
	}
	lines = append(lines, skippedLines(denied)...)
	return tool.Result{Text: strings.Join(append(notes, lines...), "\n")}
}

// warmUp opens one file of t's project and waits for the server to have checked it:
// pyright and typescript-language-server search no symbols before a file is open.
func warmUp(ctx context.Context, c *lsp.Client, t lsp.Target) {
	var first string
	seen := 0
	_ = filepath.WalkDir(t.Root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return nil
		}
		if seen++; seen > 5000 {
			return filepath.SkipAll
		}
		if d.IsDir() {
			if p != t.Root && (strings.HasPrefix(d.Name(), ".") || d.Name() == "node_modules") {
				return filepath.SkipDir
			}
			return nil
		}
		if t.Spec.Serves(p) {
			first = p
			return filepath.SkipAll
		}
		return nil
	})
	if first == "" {
		return
	}
	v, gen, err := c.Sync(ctx, first)
	if err != nil {
		return
	}
	c.WaitDiagnostics(ctx, first, v, gen, lsp.ReadyWait)
	c.WaitIdle(ctx, lsp.ReadyWait)
}

// kindNames names the symbol kinds gantry shows by their own word; kind gives
// "symbol" for the others. An array read, not a map built per call: an outline of a
// few hundred symbols names a kind per line.
var kindNames = [...]string{
	protocol.SymbolKindFile: "file", protocol.SymbolKindModule: "module", protocol.SymbolKindNamespace: "namespace",
	protocol.SymbolKindPackage: "package", protocol.SymbolKindClass: "class", protocol.SymbolKindMethod: "method",
	protocol.SymbolKindProperty: "property", protocol.SymbolKindField: "field", protocol.SymbolKindConstructor: "constructor",
	protocol.SymbolKindEnum: "enum", protocol.SymbolKindInterface: "interface", protocol.SymbolKindFunction: "func",
	protocol.SymbolKindVariable: "var", protocol.SymbolKindConstant: "const", protocol.SymbolKindStruct: "struct",
	protocol.SymbolKindTypeParameter: "type parameter",
}

// kind names a symbol kind.
func kind(k protocol.SymbolKind) string {
	if int(k) < len(kindNames) && kindNames[k] != "" {
		return kindNames[k]
	}
	return "symbol"
}

// projectCheck runs the checker of each server whose marker is found here.
func projectCheck(ctx context.Context, m *lsp.Manager, o Options, env tool.Env) tool.Result {
	ts := m.Checkers(env.Cwd)
	if len(ts) == 0 {
		return tool.Fail(`No project checker applies here (diagnostics "*" runs go vet, pyright or tsc where their project marker is); give a file instead.`)
	}
	max := o.MaxOutput
	if max <= 0 {
		max = 30000
	}
	var parts []string
	failed := false
	for _, t := range ts {
		script := t.Spec.Checker
		var out bytes.Buffer
		proc := m.Policy().Process(contain.Spec{Script: script, Dir: t.Root})
		proc.Cmd.Stdout, proc.Cmd.Stderr = &out, &out
		if err := proc.Start(); err != nil {
			parts = append(parts, fmt.Sprintf("%s could not start in %s: %v.", script, rel(env.Cwd, t.Root), err))
			failed = true
			continue
		}
		end := proc.Wait(ctx, checkerTimeout, time.Second, nil)
		text := strings.TrimSpace(hideDenied(env, t.Root, out.String()))
		head := fmt.Sprintf("$ %s (in %s)", script, rel(env.Cwd, t.Root))
		switch {
		case end.TimedOut:
			head += fmt.Sprintf(": stopped after %s", checkerTimeout)
			failed = true
		case end.Cancelled:
			head += ": cancelled"
			failed = true
		case end.Err != nil:
			head += ": " + end.Err.Error()
		default:
			if text == "" {
				text = "No problem found."
			}
		}
		parts = append(parts, head+"\n"+text)
	}
	// Within the bound by itself, the whole output saved when it is cut.
	return tool.FitIn(ctx, tool.Result{Text: strings.Join(parts, "\n\n"), IsError: failed}, max)
}

// skippedLines names the files whose results were left out because a rule denies
// reading them (tool.SkippedNote): "[skipped secret/k.go: denied by read_file:secret/.*]".
func skippedLines(denied map[string]error) []string {
	var out []string
	for _, err := range denied {
		if d, ok := tool.AsFileDenied(err); ok {
			out = append(out, d.Skipped())
		} else {
			out = append(out, "[skipped: "+err.Error()+"]")
		}
	}
	if len(out) == 0 {
		return nil
	}
	return []string{tool.SkippedNote(out)}
}

// notShown stands for a line of a file a rule denies reading.
func notShown(err error) string {
	if d, ok := tool.AsFileDenied(err); ok {
		return "[line not shown: denied by " + d.Rule + "]"
	}
	return "[line not shown: " + err.Error() + "]"
}
