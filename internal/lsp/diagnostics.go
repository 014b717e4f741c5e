package lsp

import (
	"context"
	"encoding/json"
	"fmt"
	"time"

	"go.lsp.dev/protocol"
)

// What the server publishes about files, and the waits for it: a file's diagnostics
// after a change, and the end of the server's work in progress.

// publishSettle is how long WaitDiagnostics waits, after a publish from a server
// that sends no versions, for another one: such a server may publish a document's
// diagnostics in parts (typescript-language-server: the syntactic check, then the
// semantic one), and the last publish within the settle is taken as the whole.
const publishSettle = 300 * time.Millisecond

// published is the last diagnostics a server published for a document.
type published struct {
	version int32 // -1: the server sent none
	gen     int   // counts publishes for the document
	diags   []protocol.Diagnostic
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
