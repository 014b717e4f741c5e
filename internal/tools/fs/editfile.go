package fs

import (
	"context"
	_ "embed"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/gantry-dev/gantry/internal/tool"
)

//go:embed editfile.md
var editFileDoc string

type editArg struct {
	Old string `json:"old" jsonschema_description:"Exact text to replace; it must occur exactly once in the file."`
	New string `json:"new" jsonschema_description:"Replacement text; empty deletes the matched text."`
}

type editArgs struct {
	Path   string    `json:"path" jsonschema_description:"Path of an existing file relative to the working directory or absolute."`
	Edits  []editArg `json:"edits" jsonschema_description:"Replacements; all are located in the original file and applied together."`
	DryRun bool      `json:"dry_run,omitempty" jsonschema:"default=false" jsonschema_description:"Report what would change and write nothing."`
}

// EditFile returns the edit_file tool.
func EditFile(o Options) tool.Tool {
	return tool.New(tool.Def[editArgs]{
		ClaudeNames: []string{"Edit", "MultiEdit"},
		Claude: func(env tool.Env, a editArgs) []tool.ClaudeView {
			path := env.Abs(a.Path)
			if len(a.Edits) == 1 {
				return []tool.ClaudeView{{Name: "Edit", Input: map[string]any{"file_path": path,
					"old_string": a.Edits[0].Old, "new_string": a.Edits[0].New, "replace_all": false}}}
			}
			edits := make([]map[string]any, len(a.Edits))
			for i, e := range a.Edits {
				edits[i] = map[string]any{"old_string": e.Old, "new_string": e.New}
			}
			return []tool.ClaudeView{{Name: "MultiEdit", Input: map[string]any{"file_path": path, "edits": edits}}}
		},
		FromClaude:  editFromClaude,
		Name:        "edit_file",
		Aliases:     []string{"str_replace_based_edit_tool", "str_replace_editor", "replace_in_file"},
		Core:        true,
		Label:       "Edit a file",
		Description: editFileDoc,
		Level:       tool.LevelWrite,
		Kind:        tool.KindEdit,
		Icon:        "✏️",
		Counter:     tool.CountFileOp,
		Principal:   func(a editArgs) string { return a.Path },
		Files:       tool.FilesWrite,
		Paths:       func(env tool.Env, a editArgs) []string { return []string{env.Abs(a.Path)} },
		Title: func(env tool.Env, a editArgs, paths []string) string {
			return tool.PathsTitle("Edit", env, paths, a.Path)
		},
		Preview: func(ctx context.Context, env tool.Env, a editArgs) tool.Display {
			a.DryRun = true // what the call would change, written nowhere
			if r := editFile(ctx, env, a, o.maxOutput()); !r.IsError {
				return tool.Display{Diff: r.Display.Diff, Changes: r.Display.Changes}
			}
			return tool.Display{}
		},
		Check: checkEdit,
		Run: func(ctx context.Context, env tool.Env, a editArgs) tool.Result {
			return editFile(ctx, env, a, o.maxOutput())
		},
	})
}

func checkEdit(a editArgs) string {
	if strings.TrimSpace(a.Path) == "" {
		return `edit_file needs a file in "path", which is empty.`
	}
	if len(a.Edits) == 0 {
		return `edit_file needs at least one {old, new} pair in "edits".`
	}
	for i, e := range a.Edits {
		if e.Old == "" {
			return fmt.Sprintf("edits[%d].old is empty; give the exact text to replace (to create a file, use write_file).", i)
		}
		if e.Old == e.New {
			return fmt.Sprintf("edits[%d] has the same old and new text, so it would change nothing.", i)
		}
	}
	return ""
}

func editFile(ctx context.Context, env tool.Env, a editArgs, maxOut int) tool.Result {
	if ctx.Err() != nil {
		return tool.Fail("edit_file was cancelled; nothing was written.")
	}
	abs := env.Abs(a.Path)
	// edit_file reads the file it writes, and its errors and diff quote it.
	if err := env.CanChange(abs); err != nil {
		return refused("edit_file", err)
	}
	target := writeTarget(abs)
	src, msg := loadSource(ctx, env, a.Path, abs, target, "edit_file")
	if msg != "" {
		return tool.Fail(msg)
	}
	data := src.data
	text, form := splitForm(data)
	spans, problems := resolveEdits(a.Path, text, form, a.Edits)
	if len(problems) > 0 {
		head := "No edit was applied and the file is unchanged: "
		if len(a.Edits) == 1 {
			head = "The edit was not applied and the file is unchanged: "
		}
		return tool.Fail(tool.Bound(head+strings.Join(problems, "\n\n"), maxOut))
	}
	updated := form.join(applySpans(text, spans))
	if form.bom { // the spans are offsets into the text after the byte-order mark
		for i := range spans {
			spans[i].start += len(utf8BOM)
			spans[i].end += len(utf8BOM)
		}
	}
	c := newEditChange(a.Path, data, updated, spans)
	var cs fileChanges
	cs.add(abs, data, updated, false, false)
	n := plural(len(a.Edits), "edit")
	d := c.diff(false)
	display := tool.Display{Diff: d, Changes: cs}
	if a.DryRun {
		headline := fmt.Sprintf("Dry run: %s would apply to %s: %s. Nothing was written.", n, a.Path, c.summary())
		return tool.Result{Text: tool.Bound(joinReport(headline, c.diff(true)), maxOut), Display: display}
	}
	if ctx.Err() != nil {
		return tool.Fail("edit_file was cancelled; nothing was written.")
	}
	if msg := saveEdit(ctx, env, a.Path, abs, target, src, updated); msg != "" {
		return tool.Fail(msg)
	}
	headline := fmt.Sprintf("Applied %s to %s: %s.", n, a.Path, c.summary())
	return tool.Result{Text: tool.Bound(joinReport(headline, c.diff(true)), maxOut), Display: display}
}

// saveEdit writes updated, the edited content of src: through env's editor when it
// writes, else atomically on disk at target once the disk is seen not to have changed
// since src was read from it. It returns a sentence when nothing was written.
func saveEdit(ctx context.Context, env tool.Env, shown, abs, target string, src source, updated []byte) string {
	via := writesThroughEditor(env, updated)
	mode := newFileMode
	if src.info != nil {
		mode = src.info.Mode().Perm()
	}
	switch {
	case src.info == nil: // an unsaved buffer of the editor, not yet on disk
		if err := os.MkdirAll(filepath.Dir(target), 0o755); err != nil {
			return fmt.Sprintf("The folder of %s could not be created (%s); nothing was written.", shown, bareError(err))
		}
	case !src.editor && !via:
		if now, err := os.Stat(target); err != nil || now.Size() != src.info.Size() || !now.ModTime().Equal(src.info.ModTime()) {
			return fmt.Sprintf("%s changed on disk while the edit was being prepared; nothing was written. Read it again and retry.", shown)
		}
	}
	if err := writeText(ctx, env, abs, target, updated, mode, via); err != nil {
		return saveFailure(shown, err, via)
	}
	return ""
}

// editFromClaude reads Claude's Edit (file_path, old_string, new_string) or
// MultiEdit (file_path, edits) as edit_file's arguments. replace_all has no
// counterpart: every edit replaces one occurrence.
func editFromClaude(_ tool.Env, c *tool.ClaudeArgs) editArgs {
	a := editArgs{Path: c.String("file_path")}
	one := func(e *tool.ClaudeArgs) {
		if e.Bool("replace_all") {
			c.Fail(fmt.Sprintf("Claude's %s asks for replace_all, which edit_file does not do: each edit replaces one occurrence.", c.Tool))
		}
		a.Edits = append(a.Edits, editArg{Old: e.String("old_string"), New: e.String("new_string")})
		if msg := e.Err(); msg != "" {
			c.Fail(msg)
		}
	}
	if c.Tool == "MultiEdit" {
		for _, e := range c.Objects("edits") {
			one(&tool.ClaudeArgs{Tool: c.Tool, In: e})
		}
		return a
	}
	one(c)
	return a
}
