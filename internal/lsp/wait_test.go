package lsp

import (
	"context"
	"testing"
	"time"

	"go.lsp.dev/protocol"
	"go.lsp.dev/uri"

	"github.com/gantry-dev/gantry/internal/testenv"
)

// bareClient is a Client without a server, whose publishes a test makes through its
// handler; observe hears its events.
func bareClient(observe func(Event)) (*Client, handler) {
	c := &Client{spec: Spec{Name: "bare"}, observe: observe, ready: make(chan struct{}), dead: make(chan struct{}),
		changed: make(chan struct{}), diags: map[string]published{}, docs: map[string]*doc{}, working: map[string]bool{}}
	return c, handler{c: c}
}

func publish(t *testing.T, h handler, path string, version int32, msgs ...string) {
	t.Helper()
	p := &protocol.PublishDiagnosticsParams{URI: uri.File(path)}
	if version >= 0 {
		p.Version = protocol.NewOptional(version)
	}
	for _, m := range msgs {
		p.Diagnostics = append(p.Diagnostics, protocol.Diagnostic{Message: protocol.String(m)})
	}
	if err := h.PublishDiagnostics(context.Background(), p); err != nil {
		t.Fatal(err)
	}
}

func messages(ds []protocol.Diagnostic) []string {
	var out []string
	for _, d := range ds {
		out = append(out, string(d.Message.(protocol.String)))
	}
	return out
}

// TestWaitDiagnosticsFollowsTheServer: the wait ends with the publish of the version
// sent (an older version's is not taken, even for an unchanged document), and with
// the last of a versionless server's publishes after the change.
func TestWaitDiagnosticsFollowsTheServer(t *testing.T) {
	const path = "/src/a.go"
	ctx := context.Background()
	waiting := make(chan Event, 8)
	c, h := bareClient(func(e Event) {
		if e.Kind == EventWait {
			waiting <- e
		}
	})
	c.docs[path] = &doc{version: 3, gen: 0}

	// Version 2's publish is there, the document is at 3 and unchanged since (gen -1):
	// the wait is for 3's, published once the wait has begun.
	publish(t, h, path, 2, "old")
	done := make(chan []string, 1)
	go func() {
		ds, ok := c.WaitDiagnostics(ctx, path, 3, -1, time.Hour)
		if !ok {
			ds = nil
		}
		done <- messages(ds)
	}()
	testenv.Recv(t, waiting, testenv.Bound, "the wait for diagnostics to begin")
	publish(t, h, path, 3, "new")
	if got := testenv.Recv(t, done, testenv.Bound, "the diagnostics of version 3"); len(got) != 1 || got[0] != "new" {
		t.Fatalf("unchanged document at version 3: got %q, want the publish of version 3", got)
	}
	if _, _, unanswered := c.Unanswered(path); unanswered {
		t.Fatal("version 3's diagnostics were had, yet it is still unanswered")
	}

	// A versionless server published twice after the change (gen 1 then): the last.
	publish(t, h, "/src/b.ts", -1, "syntactic")
	gen := c.diags["/src/b.ts"].gen
	publish(t, h, "/src/b.ts", -1, "syntactic")
	publish(t, h, "/src/b.ts", -1, "syntactic", "semantic")
	ds, ok := c.WaitDiagnostics(ctx, "/src/b.ts", 2, gen, time.Hour)
	if got := messages(ds); !ok || len(got) != 2 {
		t.Fatalf("versionless: got %q %v, want the last publish", got, ok)
	}
}

// TestWaitDiagnosticsOfAnAnsweredVersion: a version whose diagnostics a wait already
// had, unchanged since, is answered at once, even by a server that never published for
// it (a clean file).
func TestWaitDiagnosticsOfAnAnsweredVersion(t *testing.T) {
	c, _ := bareClient(nil)
	c.docs["/src/clean.ts"] = &doc{version: 2, answered: true}
	if ds, ok := c.WaitDiagnostics(context.Background(), "/src/clean.ts", 2, -1, time.Hour); !ok || len(ds) != 0 {
		t.Fatalf("got %v %v, want no diagnostics at once", ds, ok)
	}
}
