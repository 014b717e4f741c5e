package tool

import (
	"context"
	"encoding/json"
)

// What the loop puts on the context of the call it runs: the call's id, the relay
// for calls made from inside it, and the writer for what it prints as it goes.

type callIDKey struct{}

// WithCallID returns ctx carrying the id of the tool call it runs.
func WithCallID(ctx context.Context, id string) context.Context {
	return context.WithValue(ctx, callIDKey{}, id)
}

// CallID returns the id of the tool call ctx runs, or "".
func CallID(ctx context.Context) string {
	id, _ := ctx.Value(callIDKey{}).(string)
	return id
}

// Relay runs a tool call made from inside another call (an eval cell's tool()) as
// the loop runs the model's: decoded, hooks, the permission gate and the person, the
// wrappers; it returns the result.
type Relay func(ctx context.Context, name string, input json.RawMessage) Result

type relayKey struct{}

// WithRelay returns ctx carrying the loop's relay for the call it runs.
func WithRelay(ctx context.Context, r Relay) context.Context {
	return context.WithValue(ctx, relayKey{}, r)
}

// RelayOf returns the relay ctx carries, or nil.
func RelayOf(ctx context.Context) Relay {
	r, _ := ctx.Value(relayKey{}).(Relay)
	return r
}

type progressKey struct{}

// WithProgress gives a call's run a writer for what it prints as it goes (a command's
// output), which faces show live.
func WithProgress(ctx context.Context, w func(p []byte)) context.Context {
	return context.WithValue(ctx, progressKey{}, w)
}

// ProgressOf is the call's progress writer, or nil.
func ProgressOf(ctx context.Context) func(p []byte) {
	w, _ := ctx.Value(progressKey{}).(func(p []byte))
	return w
}
