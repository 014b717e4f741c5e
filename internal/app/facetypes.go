package app

import (
	"context"

	"github.com/gantry-dev/gantry/internal/checkpoint"
	"github.com/gantry-dev/gantry/internal/compact"
	"github.com/gantry-dev/gantry/internal/llm"
	"github.com/gantry-dev/gantry/internal/resource"
	"github.com/gantry-dev/gantry/internal/tools/fs"
	"github.com/gantry-dev/gantry/internal/tools/vibe"
)

// The App is a face's door to the core: a face imports no tool package and no core
// package beyond the vocabulary the seams speak (docs/architecture.md, "Imports"), so
// the types the App's methods return and the few helpers a face needs are named here.

// FileChange is one file's difference after a checkpoint (Checkpoint.Changes,
// RewindPoint.Changes, RewindResult.Restored).
type FileChange = checkpoint.Change

// Worker is one vibe worker as the faces show it (Workers).
type Worker = vibe.State

// Pool holds the live resources (language servers, MCP connections) of the sessions
// a face opens; Options.Resources takes it so that they outlive one session.
type Pool = resource.Pool

// NewPool makes a Pool whose resources that stop on their own are reported to
// report, with the resource's name.
func NewPool(report func(name string, err error)) *Pool {
	return resource.NewPool(func(k resource.Key, err error) { report(k.String(), err) })
}

// ReadImage loads the image file at path as read_file would attach it; ok is false
// when path names no image file it can read.
func ReadImage(ctx context.Context, path string) (img llm.Image, ok bool) {
	return fs.ReadImage(ctx, path)
}

// ContextTokens is the tokens a response's request filled the context window with:
// what the auto-compaction threshold is measured against.
func ContextTokens(u llm.Usage) int64 { return compact.ContextTokens(u) }
