package tool

import (
	"context"
	"errors"
	"time"
)

// What a face may offer the tools in place of gantry's own: an editor for files (Env.Editor)
// and terminals for commands (Env.Terminals).

// Editor is text-file access a face offers in place of the disk (ACP's fs/* methods):
// reads see the editor's unsaved buffers, and writes go through the editor so that it
// tracks them. A nil Editor, or one that cannot do an operation, means the disk.
type Editor interface {
	// CanRead and CanWrite say which operations the editor offers.
	CanRead() bool
	CanWrite() bool
	// ReadText returns the text of the file at the absolute path as the editor has it.
	ReadText(ctx context.Context, path string) (string, error)
	// WriteText replaces the whole text of the file at the absolute path, creating it
	// when it is missing.
	WriteText(ctx context.Context, path, content string) error
}

// EditorReads reports whether env's editor serves reads.
func (e Env) EditorReads() bool { return e.Editor != nil && e.Editor.CanRead() }

// EditorWrites reports whether env's editor serves writes.
func (e Env) EditorWrites() bool { return e.Editor != nil && e.Editor.CanWrite() }

// Terminals runs foreground commands in terminals a face shows live (ACP's
// terminal/* methods) instead of as gantry's own children.
type Terminals interface {
	Run(ctx context.Context, req TerminalRequest) (TerminalResult, error)
}

// TerminalRequest is one command to run in a face's terminal.
type TerminalRequest struct {
	// CallID is the tool call the terminal belongs to (the face shows it there).
	CallID  string
	Command string // a bash command line
	Cwd     string // absolute
	// Timeout bounds the run; at its end the command is killed.
	Timeout time.Duration
	// OutputLimit bounds the output the terminal keeps, in bytes (its start is
	// dropped first).
	OutputLimit int
	// Env is added to the terminal's environment (NAME=value): the session's exports.
	Env []string
}

// TerminalResult is how a command run in a face's terminal ended.
type TerminalResult struct {
	Output    string
	Truncated bool // the start of the output was dropped
	// ExitCode is set when the command exited; Signal when a signal ended it.
	ExitCode *int
	Signal   string
	TimedOut bool
	// Cancelled says the call's context ended first and the command was killed.
	Cancelled bool
}

// ErrNoTerminal is returned by a Terminals that cannot run a command now; the tool
// then runs it itself.
var ErrNoTerminal = errors.New("no terminal is offered")
