package fs

import (
	"context"
	"fmt"
	"os"
	"strings"

	"github.com/gantry-dev/gantry/internal/tool"
)

// maxEditorText is the largest text read or written through the face's editor: a larger
// file is read from, and written to, the disk, because the ACP SDK caps one message at
// 10 MiB.
const maxEditorText = 8 << 20

// editorFailure is the sentence for an editor that failed to read shown; then, when
// set, ends it with what the call left undone ("; nothing was written").
func editorFailure(shown string, err error, then string) string {
	return fmt.Sprintf("%s could not be read through the editor: %s%s.", shown, editorError(err), then)
}

// editorError is err's text without a final full stop, to end a sentence of ours.
func editorError(err error) string {
	return strings.TrimRight(strings.TrimSpace(err.Error()), ".")
}

// readsThroughEditor reports whether a file of size bytes on disk is read through env's
// editor.
func readsThroughEditor(env tool.Env, size int64) bool {
	return env.EditorReads() && size <= maxEditorText
}

// writesThroughEditor reports whether data is written through env's editor.
func writesThroughEditor(env tool.Env, data []byte) bool {
	return env.EditorWrites() && len(data) <= maxEditorText
}

// writeText writes data, a file's whole new content: through env's editor at named (the
// absolute path the model gave) when viaEditor, else atomically at target on disk with
// mode.
func writeText(ctx context.Context, env tool.Env, named, target string, data []byte, mode os.FileMode, viaEditor bool) error {
	if viaEditor {
		return env.Editor.WriteText(ctx, named, string(data))
	}
	return writeAtomic(target, data, mode)
}

// saveFailure turns a failed write into a sentence for the model.
func saveFailure(shown string, err error, viaEditor bool) string {
	if viaEditor {
		return fmt.Sprintf("%s could not be written through the editor: %s.", shown, editorError(err))
	}
	return writeFailure(shown, err)
}

// through is the words a message adds for a write that went through the editor.
func through(viaEditor bool) string {
	if viaEditor {
		return " through the editor"
	}
	return ""
}

// source is a text file loaded for editing.
type source struct {
	data []byte      // the text the edit applies to
	disk []byte      // the bytes on disk (equal to data unless the editor served it)
	info os.FileInfo // the file on disk; nil when only the editor has it
	// editor says data came through the editor.
	editor bool
}

// loadSource reads a text file for editing, as loadText does, then through env's editor
// when it reads: the disk still decides what is a directory, a special file, binary or
// too large, and a file the disk does not have may be an editor's unsaved buffer. named
// is the absolute path the model gave, target the file on disk (the end of its links).
func loadSource(ctx context.Context, env tool.Env, shown, named, target, toolName string) (source, string) {
	data, info, msg := loadText(shown, target, toolName)
	if !env.EditorReads() {
		return source{data: data, disk: data, info: info}, msg
	}
	if msg == missingFile(shown) {
		text, err := env.Editor.ReadText(ctx, named)
		if err != nil {
			return source{}, msg
		}
		return source{data: []byte(text), editor: true}, ""
	}
	if msg != "" || !readsThroughEditor(env, info.Size()) {
		return source{data: data, disk: data, info: info}, msg
	}
	text, err := env.Editor.ReadText(ctx, named)
	if err != nil {
		return source{}, editorFailure(shown, err, "; nothing was written")
	}
	return source{data: []byte(text), disk: data, info: info, editor: true}, ""
}
