package app

import (
	"context"
	"errors"
	"fmt"

	"github.com/gantry-dev/gantry/internal/resource"
	"github.com/gantry-dev/gantry/internal/tool"
)

// The keys of the toolsets a session's tools are built with, each saying its scope
// (docs/architecture.md, "One lifecycle"): the shell's background tasks, the staged
// structural edits, the desktop's connection and the vibe workers are the session's;
// a debug session and eval kernels are a conversation's (the session's main one, a
// subagent's run, a vibe worker), so that none sees another's variables or ends
// another's program.
var (
	shellKey   = resource.Key{Scope: resource.Session, Kind: "shell", Of: "background tasks"}
	stagedKey  = resource.Key{Scope: resource.Session, Kind: "structural", Of: "staged edits"}
	desktopKey = resource.Key{Scope: resource.Session, Kind: "computer", Of: "the desktop's connection"}
	vibeKey    = resource.Key{Scope: resource.Session, Kind: "vibe", Of: "workers"}
	debugKey   = resource.Key{Scope: resource.Conversation, Kind: "debug", Of: "debug session"}
	evalKey    = resource.Key{Scope: resource.Conversation, Kind: "eval", Of: "kernels"}
)

// own gives set to the pool of key's scope (seen from pool), which closes it when
// its owner ends, and declares the set's tools in reg while when holds (nil: always).
// A set is cheap to build and starts what it holds at its first call; the pool owns
// it from here so that whatever it starts is closed in order with the rest. A key the
// pool already holds keeps its set (that one's tools are declared); a pool closed
// already cannot take set, which is closed now.
func own[S tool.Toolset](reg *tool.Registry, pool *resource.Pool, key resource.Key, set S, when func() bool) S {
	got, err := resource.Get(context.Background(), pool, key, func(context.Context) (S, error) { return set, nil })
	if errors.Is(err, resource.ErrClosed) {
		_ = set.Close(context.Background()) // (nothing started yet: nothing to fail)
		got = set
	} else if err != nil {
		panic(fmt.Sprintf("two kinds of toolset under one key: %v", err)) // a mistake in this file's keys
	}
	for _, t := range got.Tools() {
		if when == nil {
			reg.Add(t)
		} else {
			reg.AddWhen(t, when)
		}
	}
	return got
}
