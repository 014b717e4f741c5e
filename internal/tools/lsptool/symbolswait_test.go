package lsptool

import (
	"path/filepath"
	"slices"
	"sync"
	"testing"

	"github.com/gantry-dev/gantry/internal/lsp"
)

// events records what the clients of a Manager report.
type events struct {
	mu  sync.Mutex
	all []lsp.Event
}

func (e *events) observe(ev lsp.Event) {
	e.mu.Lock()
	e.all = append(e.all, ev)
	e.mu.Unlock()
}

// kinds lists, from the n-th event on, the kinds of those about path.
func (e *events) kinds(n int, path string) []lsp.EventKind {
	e.mu.Lock()
	defer e.mu.Unlock()
	var out []lsp.EventKind
	for _, ev := range e.all[n:] {
		if ev.Path == path {
			out = append(out, ev.Kind)
		}
	}
	return out
}

func (e *events) count() int {
	e.mu.Lock()
	defer e.mu.Unlock()
	return len(e.all)
}

// TestSymbolsDoNotWaitForDiagnostics: lsp symbols of a file syncs it and asks for its
// outline without waiting for its diagnostics, even from a server whose readiness is
// its diagnostics (gopls made to act as pyright does here); the next query that needs
// the project does wait for them.
func TestSymbolsDoNotWaitForDiagnostics(t *testing.T) {
	needGopls(t)
	dir := shapesProject(t)
	var ev events
	m := newManager(t, lsp.Options{Servers: lsp.Merge(lsp.Defaults(), []lsp.Spec{{Name: "gopls", ReadyOnDiagnostics: true}}),
		Observe: ev.observe})
	lt := Tool(m, Options{})
	path := filepath.Join(dir, "shapes.go")
	n := ev.count()
	wantText(t, call(t, lt, dir, A{"action": "symbols", "file": "shapes.go"}), "shapes.go:4: interface Shape", "shapes.go:14: func Total")
	got := ev.kinds(n, path)
	if !slices.Contains(got, lsp.EventSync) || slices.Contains(got, lsp.EventWait) {
		t.Fatalf("symbols: want the file synced and no wait for its diagnostics, got %v", got)
	}
	// A definition (unchanged file, opened by symbols) waits for them now.
	n = ev.count()
	wantText(t, call(t, lt, dir, A{"action": "definition", "file": "shapes.go", "line": 14, "symbol": "Shape"}), "shapes.go:4:")
	if got := ev.kinds(n, path); !slices.Contains(got, lsp.EventWait) {
		t.Fatalf("definition after symbols: want a wait for the file's diagnostics, got %v", got)
	}
	// And after a change too, symbols only syncs.
	writeTree(t, dir, map[string]string{"shapes.go": shapesGo + "\nfunc Extra() {}\n"})
	n = ev.count()
	wantText(t, call(t, lt, dir, A{"action": "symbols", "file": "shapes.go"}), "func Extra")
	if got := ev.kinds(n, path); !slices.Contains(got, lsp.EventSync) || slices.Contains(got, lsp.EventWait) {
		t.Fatalf("symbols after a change: got %v", got)
	}
}
