package lsp

import (
	"context"
	"encoding/json"
	"fmt"
	"os"

	"github.com/gantry-dev/gantry/internal/contain"
	"go.lsp.dev/protocol"
)

// The requests and notifications the server sends the client.

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

func (handler) LogMessage(context.Context, *protocol.LogMessageParams) error { return nil }

func (handler) ShowMessage(context.Context, *protocol.ShowMessageParams) error { return nil }

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
