package lsp

import "time"

// EventKind names what a client did or heard.
type EventKind string

// The events a client reports to Options.Observe.
const (
	// EventSync: the client sent a document's new content (didOpen or didChange);
	// Version is the document's new version.
	EventSync EventKind = "sync"
	// EventPublish: the server published a document's diagnostics; Version is the
	// one it gave (-1: none), Count the number of diagnostics.
	EventPublish EventKind = "publish"
	// EventWait: WaitDiagnostics began to wait for a document's diagnostics of
	// Version.
	EventWait EventKind = "wait"
	// EventPull: the client asked the server for a document's diagnostics
	// (textDocument/diagnostic) and had its answer; Count the number of diagnostics.
	EventPull EventKind = "pull"
)

// Event is one thing a client did or heard, for Options.Observe.
type Event struct {
	Kind    EventKind
	Server  string // the server's name
	Path    string // the document's path
	Version int32
	Count   int
	At      time.Time
}

// emit tells the observer, if any, of e.
func (c *Client) emit(kind EventKind, path string, version int32, count int) {
	if c.observe == nil {
		return
	}
	c.observe(Event{Kind: kind, Server: c.spec.Name, Path: path, Version: version, Count: count, At: time.Now()})
}
