package fs

import (
	"context"
	_ "embed"
	"fmt"
	"strings"

	"github.com/gantry-dev/gantry/internal/tool"
)

//go:embed applypatch.md
var applyPatchDoc string

type patchArgs struct {
	Patch string `json:"patch" jsonschema_description:"The whole patch from *** Begin Patch to *** End Patch."`
}

// ApplyPatch returns the apply_patch tool.
func ApplyPatch(o Options) tool.Tool {
	return tool.New(tool.Def[patchArgs]{
		ClaudeNames: []string{"Write", "Edit", "MultiEdit"},
		Claude:      claudePatch,
		// Claude Code has no patch tool: a hook's updatedInput for the view of one
		// file cannot be put back into a patch that may change several.
		FromClaude: func(_ tool.Env, c *tool.ClaudeArgs) patchArgs {
			c.Fail(fmt.Sprintf("apply_patch cannot take an updatedInput written for Claude's %s view of one of its files, since a patch may change several files and Claude Code has no patch tool to map it from (a hook may give apply_patch's own patch field instead).", c.Tool))
			return patchArgs{}
		},
		Name:        "apply_patch",
		Core:        true,
		Label:       "Apply a patch",
		Description: applyPatchDoc,
		Level:       tool.LevelWrite,
		Kind:        tool.KindEdit,
		Icon:        "✏️",
		Counter:     tool.CountFileOp,
		Title: func(env tool.Env, _ patchArgs, paths []string) string {
			return tool.PathsTitle("Patch", env, paths, "")
		},
		Preview: previewPatch,
		Principal: func(a patchArgs) string {
			ops, _ := parsePatch(a.Patch)
			return strings.Join(patchPaths(ops), " ")
		},
		Files: tool.FilesWrite,
		Paths: func(env tool.Env, a patchArgs) []string {
			ops, _ := parsePatch(a.Patch)
			var abs []string
			for _, p := range patchPaths(ops) {
				abs = append(abs, env.Abs(p))
			}
			return abs
		},
		Check: func(a patchArgs) string {
			if _, err := parsePatch(a.Patch); err != nil {
				return err.Error()
			}
			return ""
		},
		Run: func(ctx context.Context, env tool.Env, a patchArgs) tool.Result {
			return applyPatch(ctx, env, a, o.maxOutput())
		},
	})
}

func applyPatch(ctx context.Context, env tool.Env, a patchArgs, maxOut int) tool.Result {
	ops, err := parsePatch(a.Patch)
	if err != nil {
		return tool.Fail(err.Error())
	}
	plan, msg := planPatch(ctx, env, ops)
	if msg != "" {
		return tool.Fail(tool.Bound(msg, maxOut))
	}
	if ctx.Err() != nil {
		return tool.Fail("apply_patch was cancelled; nothing was changed.")
	}
	if err := commitPatch(ctx, env, plan); err != nil {
		return tool.Fail(fmt.Sprintf("The patch could not be applied (%v); the files already changed were restored.", err))
	}
	text, display := reportPatch(plan)
	return tool.Result{Text: tool.Bound(text, maxOut), Display: display}
}

// previewPatch is what a patch would change, planned against the files as they are
// and written nowhere; a patch that would not apply shows nothing (the call says why).
func previewPatch(ctx context.Context, env tool.Env, a patchArgs) tool.Display {
	ops, err := parsePatch(a.Patch)
	if err != nil {
		return tool.Display{}
	}
	plan, msg := planPatch(ctx, env, ops)
	if msg != "" {
		return tool.Display{}
	}
	_, display := reportPatch(plan)
	return display
}

// reportPatch is the model's report of a planned patch and what faces show of it. A
// Delete File followed by an Add File of the same path is reported as one replacement.
func reportPatch(plan []*fileEdit) (string, tool.Display) {
	replaced := map[*fileEdit]bool{}
	for _, e := range plan {
		if e.replaces != nil && e.replaces.op.kind == 'D' {
			replaced[e.replaces] = true
		}
	}
	var text, display []string
	var cs fileChanges
	added, deleted, files := 0, 0, 0
	for _, e := range plan {
		if replaced[e] {
			continue
		}
		files++
		path := e.named
		if e.op.moveTo != "" {
			path = e.dest
		}
		old, created := e.old, e.op.kind == 'A'
		replacing := created && e.replaces != nil && e.replaces.op.kind == 'D'
		if replacing {
			old, created = e.replaces.old, false
		}
		cs.add(path, old, e.new, created, e.op.kind == 'D')
		c := newChange(e.op.path, old, e.new, created, e.op.kind == 'D')
		c.movedTo = e.op.moveTo
		a, d, _ := c.stats()
		added, deleted = added+a, deleted+d
		display = append(display, c.diff(false))
		switch {
		case replacing:
			text = append(text, joinReport(fmt.Sprintf("Replaced %s (%s): %s.", e.op.path, plural(countLines(e.new), "line"), c.summary()), c.diff(true)))
		case e.op.kind == 'A':
			text = append(text, joinReport(fmt.Sprintf("Added %s (%s).", e.op.path, plural(countLines(e.new), "line")), c.diff(true)))
		case e.op.kind == 'D':
			text = append(text, fmt.Sprintf("Deleted %s (%s).", e.op.path, plural(countLines(e.old), "line")))
		case e.op.moveTo != "":
			text = append(text, joinReport(fmt.Sprintf("Moved %s to %s: %s.", e.op.path, e.op.moveTo, c.summary()), c.diff(true)))
		default:
			text = append(text, joinReport(fmt.Sprintf("Updated %s: %s.", e.op.path, c.summary()), c.diff(true)))
		}
	}
	headline := fmt.Sprintf("Applied the patch to %s: +%d -%d lines.", plural(files, "file"), added, deleted)
	return headline + "\n\n" + strings.Join(text, "\n\n"), tool.Display{Diff: strings.Join(display, ""), Changes: cs}
}

// claudePatch is a patch as Claude Code's hooks would see it: one call per file — a
// Write of the new content for an added file, an Edit (old and new text of its hunks)
// for an updated one (and a Write of the new path when it moves), an Edit emptying a
// deleted one.
func claudePatch(env tool.Env, a patchArgs) []tool.ClaudeView {
	ops, err := parsePatch(a.Patch)
	if err != nil {
		return nil
	}
	var out []tool.ClaudeView
	for _, op := range ops {
		path := env.Abs(op.path)
		switch op.kind {
		case 'A':
			out = append(out, tool.ClaudeView{Name: "Write", Input: map[string]any{"file_path": path, "content": strings.Join(op.add, "\n") + "\n"}})
		case 'D':
			out = append(out, tool.ClaudeView{Name: "Edit", Input: map[string]any{"file_path": path, "old_string": "", "new_string": "", "delete": true}})
		case 'U':
			var olds, news []string
			for _, c := range op.chunks {
				olds = append(olds, strings.Join(c.old, "\n"))
				news = append(news, strings.Join(c.new, "\n"))
			}
			out = append(out, tool.ClaudeView{Name: "Edit", Input: map[string]any{"file_path": path,
				"old_string": strings.Join(olds, "\n"), "new_string": strings.Join(news, "\n")}})
			if op.moveTo != "" {
				out = append(out, tool.ClaudeView{Name: "Write", Input: map[string]any{"file_path": env.Abs(op.moveTo)}})
			}
		}
	}
	return out
}
