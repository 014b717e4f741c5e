package app

import (
	"context"
	"encoding/json"
	"errors"
	"io/fs"
	"os"

	"github.com/gantry-dev/gantry/internal/tool"
	fstools "github.com/gantry-dev/gantry/internal/tools/fs"
)

// maxPreview bounds the text of a file a preview holds.
const maxPreview = 4 << 20

// Preview returns what a call of edit_file or write_file would change, for a
// permission question: the unified diff and the files whole (new files with Created
// set). edit_file previews by its own dry run; write_file compares its content with
// the file as the session's editor (or the disk) has it. Other tools, bad arguments
// and files too large give an empty Display. Nothing is written.
func (a *App) Preview(ctx context.Context, toolName string, input json.RawMessage, paths []string) tool.Display {
	env := a.Agent.Env
	switch toolName {
	case "edit_file":
		var args map[string]any
		if json.Unmarshal(input, &args) != nil {
			return tool.Display{}
		}
		args["dry_run"] = true
		raw, _ := json.Marshal(args)
		t, ok := a.Agent.Tools.Lookup("edit_file")
		if !ok {
			return tool.Display{}
		}
		inv, msg := t.Decode(env, raw)
		if msg != "" {
			return tool.Display{}
		}
		if r := inv.Run(ctx); !r.IsError {
			return tool.Display{Diff: r.Display.Diff, Changes: r.Display.Changes}
		}
	case "write_file":
		var args struct {
			Path    string `json:"path"`
			Content string `json:"content"`
		}
		if json.Unmarshal(input, &args) != nil || len(paths) != 1 || len(args.Content) > maxPreview {
			return tool.Display{}
		}
		path := paths[0]
		old, exists, ok := currentText(ctx, env, path)
		if !ok {
			return tool.Display{}
		}
		ch := tool.FileChange{Path: path, Created: !exists, Old: old, New: args.Content}
		var before []byte
		if exists {
			before = []byte(old)
		}
		return tool.Display{Diff: fstools.DiffText(args.Path, before, []byte(args.Content)), Changes: []tool.FileChange{ch}}
	}
	return tool.Display{}
}

// currentText is the text of path as the editor or the disk has it; exists is false
// for a missing file; ok is false when it cannot be had or is too large.
func currentText(ctx context.Context, env tool.Env, path string) (text string, exists, ok bool) {
	var err error
	if env.EditorReads() {
		text, err = env.Editor.ReadText(ctx, path)
	} else {
		var b []byte
		b, err = os.ReadFile(path)
		text = string(b)
	}
	if err != nil {
		if _, statErr := os.Stat(path); errors.Is(statErr, fs.ErrNotExist) {
			return "", false, true // the editor's error for a missing file has no kind
		}
		return "", false, false
	}
	return text, true, len(text) <= maxPreview
}
