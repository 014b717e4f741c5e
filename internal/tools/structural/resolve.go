package structural

import (
	"context"
	"errors"
	"fmt"
	"os"
	"strings"

	"github.com/gantry-dev/gantry/internal/multiwrite"
	"github.com/gantry-dev/gantry/internal/tool"
	"github.com/gantry-dev/gantry/internal/tools/fs"
)

type resolveArgs struct {
	EditID string `json:"edit_id" jsonschema_description:"The id ast_edit gave (edit_1, edit_2, …)."`
	Action string `json:"action" jsonschema_description:"accept writes every file of the change (all or none); discard drops it."`
}

// Resolve is the resolve tool: a staged change written whole, or dropped. Its actions
// are a table: accept writes files, and is asked as a write of every file of the
// change; discard only drops the change from the session (nothing on disk changes,
// as with todo and task), so it is a read, not asked in default mode; a deny rule on
// its principal ("discard edit_1") still refuses it. The tool stays a write tool, so
// plan mode and read-only agents do not have it.
func Resolve(o Options, staged *Staged) tool.Tool {
	return tool.New(tool.Def[resolveArgs]{
		Name:        "resolve",
		Label:       "Apply or discard staged rewrites",
		Description: resolveDoc,
		Level:       tool.LevelWrite,
		Kind:        tool.KindEdit,
		Icon:        "🌳",
		Principal:   func(a resolveArgs) string { return a.Action + " " + a.EditID },
		Files:       tool.FilesWrite,
		Ops: &tool.Ops[resolveArgs]{Arg: "action", List: []tool.Op[resolveArgs]{
			{Name: "accept", Level: tool.LevelWrite,
				// The permission gate sees a write of every file of the change.
				Paths: func(_ tool.Env, a resolveArgs) []string { return staged.paths(a.EditID) },
				Title: func(_ tool.Env, a resolveArgs, _ []string) string { return "Write " + a.EditID },
				Run:   func(_ context.Context, env tool.Env, a resolveArgs) tool.Result { return accept(env, staged, a) }},
			{Name: "discard", Level: tool.LevelRead, Kind: tool.KindOther,
				Title: func(_ tool.Env, a resolveArgs, _ []string) string { return "Discard " + a.EditID },
				Run:   func(_ context.Context, _ tool.Env, a resolveArgs) tool.Result { return discard(staged, a) }},
		}},
	})
}

// lookup is the staged change a call names, or the failure that says there is none.
func lookup(staged *Staged, id string) (*Edit, tool.Result, bool) {
	e, ok := staged.get(id)
	if ok {
		return e, tool.Result{}, true
	}
	if ids := staged.pending(); len(ids) > 0 {
		return nil, tool.Fail(fmt.Sprintf("No staged change is called %q; staged now: %s.", id, strings.Join(ids, ", "))), false
	}
	return nil, tool.Fail(fmt.Sprintf("No staged change is called %q; none is staged (ast_edit stages one).", id)), false
}

// discard drops a staged change; nothing is written.
func discard(staged *Staged, a resolveArgs) tool.Result {
	e, res, ok := lookup(staged, a.EditID)
	if !ok {
		return res
	}
	if err := staged.resolve(e.ID, "discard"); err != nil {
		return tool.Fail(fmt.Sprintf("%s was not discarded: %v.", e.ID, err))
	}
	return tool.Result{Text: fmt.Sprintf("Discarded %s; nothing was written.", e.ID)}
}

// accept writes every file of a staged change, or none: each file is checked against
// the rules and the hash it was staged from first.
func accept(env tool.Env, staged *Staged, a resolveArgs) tool.Result {
	e, res, ok := lookup(staged, a.EditID)
	if !ok {
		return res
	}
	// The rules may have changed since the change was staged: every file is
	// checked again before any is read or written.
	for _, f := range e.Files {
		if err := env.CanChange(f.Path); err != nil {
			return tool.Fail(fmt.Sprintf("%s was not written: %s; nothing was written.", e.ID, err))
		}
	}
	files := make([]multiwrite.File, len(e.Files))
	var changes []tool.FileChange
	var diffs []string
	for i, f := range e.Files {
		cur, err := os.ReadFile(f.Path)
		if err != nil {
			return tool.Fail(fmt.Sprintf("%s was not written: %s cannot be read (%v); nothing was written.", e.ID, f.Shown, err))
		}
		if hashOf(cur) != f.Hash {
			return tool.Fail(fmt.Sprintf("%s was not written: %s changed since the change was staged, so none of its %d file(s) was written (a partial rewrite compiles neither way). Stage it again with ast_edit, or discard it.", e.ID, f.Shown, len(e.Files)))
		}
		files[i] = multiwrite.File{Path: f.Path, Old: string(cur), New: f.New, Mode: f.Mode}
		changes = append(changes, tool.FileChange{Path: f.Path, Old: string(cur), New: f.New})
		diffs = append(diffs, fs.DiffText(f.Shown, cur, []byte(f.New)))
	}
	if err := multiwrite.Write(files); err != nil {
		if errors.Is(err, multiwrite.ErrChanged) {
			return tool.Fail(fmt.Sprintf("%s was not written: a file changed while it was being written (%v); every file is as it was.", e.ID, err))
		}
		return tool.Fail(fmt.Sprintf("%s was not written: %v; every file is as it was.", e.ID, err))
	}
	var note string
	if err := staged.resolve(e.ID, "accept"); err != nil {
		note = fmt.Sprintf(" (but the session store could not record that it was resolved: %v)", err)
	}
	diff := strings.Join(diffs, "\n")
	return tool.Result{Text: fmt.Sprintf("Wrote %s: %d replacement(s) in %d file(s)%s.", e.ID, e.Replacements(), len(e.Files), note),
		Display: tool.Display{Diff: diff, Changes: changes}}
}
