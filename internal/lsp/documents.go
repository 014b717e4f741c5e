package lsp

import (
	"context"
	"os"

	"go.lsp.dev/protocol"
	"go.lsp.dev/uri"
)

// The server's view of files, kept in step with the disk: opened, changed, closed.

// doc is a document the client has opened.
type doc struct {
	version  int32
	text     string
	gen      int  // the count of publishes for it when this version was sent
	answered bool // WaitDiagnostics had this version's diagnostics
}

// Opened counts the documents the client has opened.
func (c *Client) Opened() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return len(c.docs)
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
