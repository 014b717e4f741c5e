package lsptool

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"strings"
	"sync"

	"github.com/gantry-dev/gantry/internal/lsp"
	"github.com/gantry-dev/gantry/internal/tool"
	"go.lsp.dev/protocol"
)

// Seen is a session's registry of the diagnostics already reported (or already there
// before the session first wrote their file): keyed on file, severity, code and
// message, never position, so that an error that merely moved is not reported again.
type Seen struct {
	mu        sync.Mutex
	keys      map[string]bool
	baselined map[string]bool // files whose diagnostics before the first write are in keys
}

// NewSeen returns an empty registry.
func NewSeen() *Seen { return &Seen{keys: map[string]bool{}, baselined: map[string]bool{}} }

func diagKey(path string, d protocol.Diagnostic) string {
	return strings.Join([]string{path, severity(d.Severity), code(d), strings.TrimSpace(message(d))}, "\x00")
}

// add records ds of path and returns those not seen before.
func (s *Seen) add(path string, ds []protocol.Diagnostic) []protocol.Diagnostic {
	s.mu.Lock()
	defer s.mu.Unlock()
	var fresh []protocol.Diagnostic
	for _, d := range ds {
		if k := diagKey(path, d); !s.keys[k] {
			s.keys[k] = true
			fresh = append(fresh, d)
		}
	}
	return fresh
}

// needsBaseline says whether path's diagnostics before a first write are still to be
// taken, and marks them taken.
func (s *Seen) needsBaseline(path string) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.baselined[path] {
		return false
	}
	s.baselined[path] = true
	return true
}

// OnWrite wraps t, a tool that writes files (Info().Files == tool.FilesWrite), so that
// after a successful call each file it wrote that a language server can serve is
// synced with the server and the diagnostics of its new version that seen has not
// reported yet are appended to the result. Before the first write to a file its
// diagnostics as it was go into seen, so an old error is never blamed on the write. A
// file no server can serve costs nothing. Other tools are returned as they are.
func OnWrite(t tool.Tool, m *lsp.Manager, seen *Seen) tool.Tool {
	if m == nil || seen == nil || t.Info().Files != tool.FilesWrite {
		return t
	}
	return &onWrite{Tool: t, m: m, seen: seen}
}

type onWrite struct {
	tool.Tool
	m    *lsp.Manager
	seen *Seen
}

// Unwrap is the tool that reports diagnostics (see tool.ArgsOf).
func (w *onWrite) Unwrap() tool.Tool { return w.Tool }

func (w *onWrite) Decode(env tool.Env, input json.RawMessage) (tool.Invocation, string) {
	inv, msg := w.Tool.Decode(env, input)
	if msg != "" || inv.Run == nil {
		return inv, msg
	}
	var targets []lsp.Target
	var paths []string
	for _, p := range inv.Paths {
		if t, ok, _ := w.m.For(p); ok {
			targets, paths = append(targets, t), append(paths, p)
		}
	}
	if len(paths) == 0 {
		return inv, ""
	}
	run := inv.Run
	inv.Run = func(ctx context.Context) tool.Result {
		unsure := map[string]bool{}
		for i, p := range paths {
			if !w.baseline(ctx, targets[i], p) {
				unsure[p] = true
			}
		}
		res := run(ctx)
		if res.IsError || ctx.Err() != nil {
			return res
		}
		var lines, notes []string
		for i, p := range paths {
			l, note := w.fresh(ctx, env, targets[i], p)
			lines = append(lines, l...)
			if len(l) > 0 && unsure[p] {
				note = joinNotes(note, fmt.Sprintf("(The diagnostics of %s before this write could not be had in time, so some of these may be older.)", rel(env.Cwd, p)))
			}
			if note != "" {
				notes = append(notes, note)
			}
		}
		if len(lines) > 0 {
			res.Text += "\n\n" + tool.DiagnosticsHeading + "\n" + strings.Join(lines, "\n")
			res.Display.Diagnostics = append(res.Display.Diagnostics, lines...)
		}
		if len(notes) > 0 {
			res.Text += "\n" + strings.Join(notes, "\n")
		}
		return res
	}
	return inv, ""
}

// baseline takes path's diagnostics before the session's first write to it; false
// when they were to be taken and could not be.
func (w *onWrite) baseline(ctx context.Context, t lsp.Target, path string) bool {
	if !w.seen.needsBaseline(path) {
		return true
	}
	if _, err := os.Stat(path); err != nil {
		return true // a new file has no old diagnostics
	}
	c, _, err := w.m.ClientWithin(ctx, t, w.m.DiagnosticsWait())
	if err != nil {
		return false
	}
	v, gen, err := c.Sync(ctx, path)
	if err != nil {
		return false
	}
	wait := w.m.DiagnosticsWait()
	if t.Spec.ReadyOnDiagnostics && gen >= 0 {
		// The file's first diagnostics are the server's readiness: a cold server may
		// take longer than a write's wait to load its project, once.
		wait = max(wait, lsp.ReadyWait)
	}
	ds, ok := c.WaitDiagnostics(ctx, path, v, gen, wait)
	if ok {
		w.seen.add(path, ds)
	}
	return ok
}

// fresh syncs path after the write and returns its diagnostics not reported yet.
func (w *onWrite) fresh(ctx context.Context, env tool.Env, t lsp.Target, path string) ([]string, string) {
	if _, err := os.Stat(path); err != nil {
		return nil, "" // deleted or moved away
	}
	c, note, err := w.m.ClientWithin(ctx, t, w.m.DiagnosticsWait())
	if err != nil {
		return nil, fmt.Sprintf("(No diagnostics: the %s language server could not start: %v.)", t.Spec.Name, err)
	}
	v, gen, err := c.Sync(ctx, path)
	if err != nil {
		return nil, note
	}
	ds, ok := c.WaitDiagnostics(ctx, path, v, gen, w.m.DiagnosticsWait())
	if !ok {
		return nil, joinNotes(note, fmt.Sprintf("(%s sent no diagnostics for %s within %s.)", t.Spec.Name, rel(env.Cwd, path), w.m.DiagnosticsWait()))
	}
	var out []string
	for _, d := range w.seen.add(path, ds) {
		out = append(out, formatDiagnostic(rel(env.Cwd, path), d))
	}
	return out, note
}

func joinNotes(a, b string) string {
	if a == "" {
		return b
	}
	return a + "\n" + b
}
