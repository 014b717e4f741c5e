package lsptool

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/gantry-dev/gantry/internal/lsp"
	"github.com/gantry-dev/gantry/internal/multiwrite"
	"github.com/gantry-dev/gantry/internal/tool"
	"github.com/gantry-dev/gantry/internal/tools/fs"
	"go.lsp.dev/protocol"
)

type renameArgs struct {
	File    string `json:"file" jsonschema_description:"The file (relative to the working directory) where the symbol is written."`
	Line    int    `json:"line" jsonschema_description:"1-based line of the symbol."`
	Symbol  string `json:"symbol" jsonschema_description:"The symbol as written on that line (its first occurrence is used)."`
	NewName string `json:"new_name" jsonschema_description:"The new name."`
}

// Rename returns the lsp_rename tool over m.
func Rename(m *lsp.Manager) tool.Tool {
	return tool.New(tool.Def[renameArgs]{
		Name:   "lsp_rename",
		Family: "language servers",
		Label:  "Rename a symbol",
		Description: "Rename a symbol everywhere the language server knows it is used, in every file at once (all or none). " +
			"The symbol is given by its 1-based line in file and its text on that line.",
		Level:     tool.LevelWrite,
		Kind:      tool.KindEdit,
		Icon:      "✏️",
		Counter:   tool.CountFileOp,
		Principal: func(a renameArgs) string { return a.File },
		Files:     tool.FilesWrite,
		Paths:     func(env tool.Env, a renameArgs) []string { return []string{env.Abs(a.File)} },
		Title: func(env tool.Env, a renameArgs, paths []string) string {
			return fmt.Sprintf("Rename %s to %s (%s:%d)", a.Symbol, a.NewName, rel(env.Cwd, paths[0]), a.Line)
		},
		Check: func(a renameArgs) string {
			switch {
			case strings.TrimSpace(a.File) == "":
				return `lsp_rename needs the file in "file".`
			case a.Line < 1:
				return `lsp_rename needs a 1-based "line".`
			case strings.TrimSpace(a.Symbol) == "":
				return `lsp_rename needs the "symbol" as written on that line.`
			case strings.TrimSpace(a.NewName) == "":
				return `lsp_rename needs the "new_name".`
			}
			return ""
		},
		Preview: func(ctx context.Context, env tool.Env, a renameArgs) tool.Display {
			plan, _, res := planRename(ctx, m, env, a)
			if plan == nil {
				return tool.Display{Note: res.Text}
			}
			return plan.display(env)
		},
		Run: func(ctx context.Context, env tool.Env, a renameArgs) tool.Result {
			plan, q, res := planRename(ctx, m, env, a)
			if plan == nil {
				return res
			}
			if err := plan.apply(); err != nil {
				return tool.Fail(fmt.Sprintf("The rename could not be written, so no file was changed: %v.", err))
			}
			for _, f := range plan.files {
				_, _, _ = q.c.Sync(ctx, f.path) // the server learns the new text
			}
			names := make([]string, len(plan.files))
			for i, f := range plan.files {
				names[i] = rel(env.Cwd, f.path)
			}
			text := fmt.Sprintf("Renamed %s to %s in %d file(s): %s.", a.Symbol, a.NewName, len(names), strings.Join(names, ", "))
			if q.note != "" {
				text = q.note + "\n" + text
			}
			d := plan.display(env)
			return tool.Result{Text: text + "\n\n" + d.Diff, Display: d}
		},
	})
}

// renamePlan is the new content of every file a rename changes.
type renamePlan struct{ files []renamedFile }

type renamedFile struct {
	path     string
	old, new string
	mode     os.FileMode
}

func planRename(ctx context.Context, m *lsp.Manager, env tool.Env, a renameArgs) (*renamePlan, *query, tool.Result) {
	q, res := open(ctx, m, env, a.File, true)
	if q == nil {
		return nil, nil, res
	}
	pos, problem := q.file.locate(a.Line, a.Symbol, q.shown)
	if problem != "" {
		return nil, nil, tool.Fail(problem)
	}
	we, err := q.c.Server().Rename(ctx, &protocol.RenameParams{TextDocumentPositionParams: q.posParams(pos), NewName: a.NewName})
	if err != nil {
		return nil, nil, tool.Fail(fmt.Sprintf("The language server refused the rename: %v.", serverError(err)))
	}
	edits, msg := collectEdits(we)
	if msg != "" {
		return nil, nil, tool.Fail(msg)
	}
	if len(edits) == 0 {
		return nil, nil, tool.Fail(fmt.Sprintf("The language server found nothing to rename for %s on line %d of %s.", a.Symbol, a.Line, q.shown))
	}
	plan := &renamePlan{}
	paths := make([]string, 0, len(edits))
	for p := range edits {
		paths = append(paths, p)
	}
	sort.Strings(paths)
	// Every file of the edit is read and written: all are checked before any is read,
	// so a rename is refused whole when a rule denies one of its files.
	for _, p := range paths {
		if err := env.CanChange(p); err != nil {
			return nil, nil, tool.Fail(fmt.Sprintf("The rename would change %s, and %s; nothing was changed.", rel(env.Cwd, p), err))
		}
	}
	for _, p := range paths {
		if !inside(p, env.Cwd) {
			return nil, nil, tool.Fail(fmt.Sprintf("The rename would change %s, outside the workspace; nothing was changed.", p))
		}
		st, err := os.Stat(p)
		if err != nil {
			return nil, nil, tool.Fail(fmt.Sprintf("The rename would change %s, which cannot be read (%v); nothing was changed.", rel(env.Cwd, p), err))
		}
		old, err := os.ReadFile(p)
		if err != nil {
			return nil, nil, tool.Fail(fmt.Sprintf("%s cannot be read (%v); nothing was changed.", rel(env.Cwd, p), err))
		}
		nt, err := lsp.Apply(string(old), edits[p])
		if err != nil {
			return nil, nil, tool.Fail(fmt.Sprintf("The server's edits of %s do not apply (%v); nothing was changed.", rel(env.Cwd, p), err))
		}
		plan.files = append(plan.files, renamedFile{path: p, old: string(old), new: nt, mode: st.Mode()})
	}
	return plan, q, tool.Result{}
}

// collectEdits gathers the text edits of a workspace edit by path; a file operation
// (create, rename, delete) is refused.
func collectEdits(we *protocol.WorkspaceEdit) (map[string][]protocol.TextEdit, string) {
	out := map[string][]protocol.TextEdit{}
	if we == nil {
		return out, ""
	}
	for u, es := range we.Changes {
		out[u.Path()] = append(out[u.Path()], es...)
	}
	for _, dc := range we.DocumentChanges {
		tde, ok := dc.(*protocol.TextDocumentEdit)
		if !ok {
			return nil, "The language server's rename creates, renames or deletes files, which lsp_rename does not do; nothing was changed."
		}
		p := tde.TextDocument.URI.Path()
		for _, e := range tde.Edits {
			switch v := e.(type) {
			case *protocol.TextEdit:
				out[p] = append(out[p], *v)
			case *protocol.AnnotatedTextEdit:
				out[p] = append(out[p], v.TextEdit)
			default:
				return nil, "The language server's rename uses snippet edits, which lsp_rename cannot apply; nothing was changed."
			}
		}
	}
	return out, ""
}

func (p *renamePlan) display(env tool.Env) tool.Display {
	var d tool.Display
	var diffs []string
	for _, f := range p.files {
		diffs = append(diffs, fs.DiffText(rel(env.Cwd, f.path), []byte(f.old), []byte(f.new)))
		d.Changes = append(d.Changes, tool.FileChange{Path: f.path, Old: f.old, New: f.new})
	}
	d.Diff = strings.Join(diffs, "\n")
	return d
}

// apply writes every file or none (multiwrite.Write): each must still be what the
// plan was made from.
func (p *renamePlan) apply() error {
	files := make([]multiwrite.File, len(p.files))
	for i, f := range p.files {
		files[i] = multiwrite.File{Path: f.path, Old: f.old, New: f.new, Mode: f.mode}
	}
	err := multiwrite.Write(files)
	if ce := (*multiwrite.ChangedError)(nil); errors.As(err, &ce) {
		return fmt.Errorf("%s changed while the rename was prepared", filepath.Base(ce.Path))
	}
	return err
}
