package acp

import (
	"context"
	"encoding/json"
	"errors"
	"io/fs"
	"os"

	sdk "github.com/coder/acp-go-sdk"

	"github.com/gantry-dev/gantry/internal/face"
)

// maxPreview bounds the text a permission request shows of an edit.
const maxPreview = 4 << 20

// preview is the diff a permission request for an edit shows: edit_file's own dry
// run, or write_file's content against the file as it is. Other calls show none.
func (s *session) preview(ctx context.Context, req face.PermissionRequest) []sdk.ToolCallContent {
	switch req.Tool {
	case "edit_file":
		var args map[string]any
		if json.Unmarshal(req.Input, &args) != nil {
			return nil
		}
		args["dry_run"] = true
		raw, _ := json.Marshal(args)
		t, ok := s.app.Agent.Tools.Lookup("edit_file")
		if !ok {
			return nil
		}
		inv, msg := t.Decode(s.app.Agent.Env, raw)
		if msg != "" {
			return nil
		}
		if r := inv.Run(ctx); !r.IsError {
			return resultContent(r)
		}
	case "write_file":
		var args struct{ Content string }
		if json.Unmarshal(req.Input, &args) != nil || len(req.Locations) != 1 || len(args.Content) > maxPreview {
			return nil
		}
		path := req.Locations[0]
		env := s.app.Agent.Env
		var old string
		var err error
		if env.EditorReads() {
			old, err = env.Editor.ReadText(ctx, path)
		} else {
			var b []byte
			b, err = os.ReadFile(path)
			old = string(b)
		}
		if err != nil {
			if _, statErr := os.Stat(path); errors.Is(statErr, fs.ErrNotExist) {
				err = statErr // the editor's error for a missing file has no kind
			}
		}
		switch {
		case errors.Is(err, fs.ErrNotExist):
			return []sdk.ToolCallContent{sdk.ToolDiffContent(path, args.Content)}
		case err != nil || len(old) > maxPreview:
			return nil
		}
		return []sdk.ToolCallContent{sdk.ToolDiffContent(path, args.Content, old)}
	}
	return nil
}
