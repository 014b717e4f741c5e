// Package tool defines what a gantry tool is: its metadata (name, level, ACP kind,
// principal argument, paths touched), its JSON schema derived from a Go struct, the
// decoding of the model's arguments into that struct with errors written for the model,
// and the Registry that decides which tools are declared.
package tool

import (
	"context"
	"encoding/json"
	"fmt"
	"path/filepath"

	"github.com/gantry-dev/gantry/internal/llm"
)

// Level is how much a tool may change the world. It decides which surfaces see a tool.
type Level int

// The levels, in increasing order of power.
const (
	LevelRead  Level = iota // no side effect
	LevelWrite              // changes files
	LevelExec               // starts or drives a process
)

// ParseLevel reads "read", "write" or "exec".
func ParseLevel(s string) (Level, error) {
	switch s {
	case "read":
		return LevelRead, nil
	case "write":
		return LevelWrite, nil
	case "exec":
		return LevelExec, nil
	}
	return LevelExec, fmt.Errorf("unknown level %q: choose read, write or exec", s)
}

func (l Level) String() string {
	switch l {
	case LevelRead:
		return "read"
	case LevelWrite:
		return "write"
	default:
		return "exec"
	}
}

// Kind is the ACP tool-call kind of a tool.
type Kind string

// The ACP tool-call kinds.
const (
	KindRead       Kind = "read"
	KindEdit       Kind = "edit"
	KindDelete     Kind = "delete"
	KindMove       Kind = "move"
	KindSearch     Kind = "search"
	KindExecute    Kind = "execute"
	KindThink      Kind = "think"
	KindFetch      Kind = "fetch"
	KindSwitchMode Kind = "switch_mode"
	KindOther      Kind = "other"
)

// Env is what a call knows of the session it runs in.
type Env struct {
	// Cwd is the session's working directory, absolute.
	Cwd string
	// SessionID names the session (background task files live under it).
	SessionID string
	// Editor, when set, is the face's access to the files it has open (see Editor);
	// Terminals the face's live terminals. Both are nil outside editors.
	Editor    Editor
	Terminals Terminals
}

// Abs resolves p against the working directory.
func (e Env) Abs(p string) string {
	if p == "" {
		return e.Cwd
	}
	if filepath.IsAbs(p) {
		return filepath.Clean(p)
	}
	return filepath.Join(e.Cwd, p)
}

// Display is what a face shows of a result, apart from what the model reads, so that
// faces never parse tool output.
type Display struct {
	// Preview replaces Text in the face's preview lines when set.
	Preview string
	// Diff is a unified diff of the change the call made (or would make).
	Diff string
	// Hidden asks the face not to echo the output (read_skill).
	Hidden bool
	// Note is a short line for the face, e.g. an image's size.
	Note string
	// Changes are the text files the call changed (or would change), whole, for faces
	// that show a reviewable diff (ACP). Binary files and files too large to hold are
	// left out.
	Changes []FileChange
}

// FileChange is one text file's content before and after a call.
type FileChange struct {
	Path    string // absolute
	Created bool   // Old is empty because the file did not exist
	Deleted bool   // New is empty because the file was removed
	Old     string
	New     string
}

// Result is the outcome of a call.
type Result struct {
	// Text is what the model reads.
	Text string
	// IsError marks an ordinary failure (missing file, non-zero exit, refusal).
	IsError bool
	// Images go to the model as image blocks beside Text.
	Images []llm.Image
	// Display is for faces only.
	Display Display
}

// Fail returns an error result with the sentence s.
func Fail(s string) Result { return Result{Text: s, IsError: true} }

// Invocation is a decoded call, ready for the permission gate and then to run.
type Invocation struct {
	// Principal is the argument permission rules match against (command, path, URL…).
	Principal string
	// Paths are the absolute paths the call touches (ACP locations).
	Paths []string
	// Run performs the call. It must honour ctx and never panic for bad input.
	Run func(ctx context.Context) Result
}

// Tool is one tool gantry can declare to the model.
type Tool interface {
	Name() string
	Level() Level
	Kind() Kind
	// Spec is the declaration sent to the model.
	Spec() llm.ToolSpec
	// Decode checks and decodes the model's arguments. A non-empty sentence means the
	// arguments were malformed; it is written for the model and names the field.
	Decode(env Env, input json.RawMessage) (Invocation, string)
}
