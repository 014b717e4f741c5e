// Package fs holds the file tools the model edits a project with: read_file (a streamed,
// bounded view of a text file, or an image), write_file (a whole file, written
// atomically), edit_file (exact, unique replacements resolved against the original text)
// and apply_patch (the Codex "*** Begin Patch" format, all files or none).
//
// Every failure the model can cause — a missing file, a binary file, an ambiguous edit, a
// corrupt patch — is one sentence returned as an error result; a file is either written
// whole or left as it was.
//
// When the face is an editor (tool.Env.Editor), text is read through it, so that the
// model sees unsaved buffers, and written through it, so that the editor tracks the
// edit; the disk still decides what is a directory, a special file, binary or too large,
// and deletions and moves stay on disk. The tools that change files list the whole old
// and new text of each in tool.Display.Changes.
package fs

import "github.com/gantry-dev/gantry/internal/tool"

// Options configure the file tools.
type Options struct {
	// MaxOutput bounds the text the model reads, in characters; 0 means 30000.
	MaxOutput int
}

// DefaultMaxOutput is the output bound used when Options.MaxOutput is not set.
const DefaultMaxOutput = tool.DefaultMaxOutput

func (o Options) maxOutput() int { return tool.MaxOutputOr(o.MaxOutput) }

// Tools returns read_file, write_file, edit_file and apply_patch.
func Tools(o Options) []tool.Tool {
	return []tool.Tool{ReadFile(o), WriteFile(o), EditFile(o), ApplyPatch(o)}
}
