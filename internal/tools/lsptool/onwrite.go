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

// Seen is a session's memory of the diagnostics of the files it wrote: per file, the
// last list its server gave, which stands for the file's diagnostics before a write
// when they cannot be had afresh in time.
type Seen struct {
	mu   sync.Mutex
	last map[string][]protocol.Diagnostic
}

// NewSeen returns an empty registry.
func NewSeen() *Seen { return &Seen{last: map[string][]protocol.Diagnostic{}} }

// remember records ds as path's diagnostics now.
func (s *Seen) remember(path string, ds []protocol.Diagnostic) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.last[path] = ds
}

// recall is path's last recorded diagnostics; ok false when none were recorded.
func (s *Seen) recall(path string) (ds []protocol.Diagnostic, ok bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	ds, ok = s.last[path]
	return ds, ok
}

// OnWrite wraps t, a tool that writes files (Info().Files == tool.FilesWrite), so that
// after a successful call each file it wrote that a language server can serve is
// synced with the server and the diagnostics its new version has beyond those of the
// file before the write (newDiagnostics: a multiset difference, without positions)
// are appended to the result. The diagnostics before are the server's for the file as
// it is before the call (at once when the server already has that version), else the
// last ones seen recorded for it. A file no server can serve costs nothing. Other
// tools are returned as they are.
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
		before := make([][]protocol.Diagnostic, len(paths))
		unsure := map[string]bool{}
		for i, p := range paths {
			ds, ok := w.before(ctx, targets[i], p)
			if !ok {
				ds, ok = w.seen.recall(p)
			}
			before[i], unsure[p] = ds, !ok
		}
		res := run(ctx)
		if res.IsError || ctx.Err() != nil {
			return res
		}
		var lines, notes []string
		for i, p := range paths {
			l, note := w.fresh(ctx, env, targets[i], p, before[i])
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

// before is path's diagnostics before the write: the server's for its content now,
// at once when the server has had that content since its last diagnostics, else
// waited for. ok is false when they could not be had in time.
func (w *onWrite) before(ctx context.Context, t lsp.Target, path string) ([]protocol.Diagnostic, bool) {
	if _, err := os.Stat(path); err != nil {
		return nil, true // a new file has no old diagnostics
	}
	c, _, err := w.m.ClientWithin(ctx, t, 0) // the diagnostics' wait is the readiness
	if err != nil {
		return nil, false
	}
	v, gen, err := c.Sync(ctx, path)
	if err != nil {
		return nil, false
	}
	wait := w.m.DiagnosticsWait()
	if gen >= 0 && (t.Spec.ReadyOnDiagnostics || !c.Ready()) {
		// The file's first diagnostics are the server's readiness (a write does not
		// wait for its progress first): a cold server may take longer than a write's
		// wait to load its project, once.
		wait = max(wait, lsp.ReadyWait)
	}
	ds, ok := c.WaitDiagnostics(ctx, path, v, gen, wait)
	if ok {
		w.seen.remember(path, ds)
	}
	return ds, ok
}

// fresh syncs path after the write and returns, formatted, its diagnostics beyond
// before.
func (w *onWrite) fresh(ctx context.Context, env tool.Env, t lsp.Target, path string, before []protocol.Diagnostic) ([]string, string) {
	if _, err := os.Stat(path); err != nil {
		return nil, "" // deleted or moved away
	}
	c, note, err := w.m.ClientWithin(ctx, t, 0)
	if err != nil {
		return nil, fmt.Sprintf("(No diagnostics: the %s language server could not start: %v.)", t.Spec.Name, err)
	}
	v, gen, err := c.Sync(ctx, path)
	if err != nil {
		return nil, note
	}
	ds, ok := c.WaitDiagnostics(ctx, path, v, gen, w.m.DiagnosticsWait())
	if !ok {
		return nil, joinNotes(note, fmt.Sprintf("(%s gave no diagnostics for %s within %s; they may still come: call lsp diagnostics.)",
			t.Spec.Name, rel(env.Cwd, path), w.m.DiagnosticsWait()))
	}
	w.seen.remember(path, ds)
	var out []string
	for _, d := range newDiagnostics(before, ds) {
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
