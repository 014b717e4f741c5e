package fs

import (
	"context"
	"errors"
	"fmt"
	iofs "io/fs"
	"os"
	"path/filepath"

	"github.com/gantry-dev/gantry/internal/tool"
)

// commitPatch performs a planned patch. Each file is written atomically on disk, or
// whole through env's editor when it writes; deletions and moves are done on disk. If
// one step fails, the steps already done are undone in reverse order, so the files end
// as they were. The error says what failed, and what could not be restored if anything.
func commitPatch(ctx context.Context, env tool.Env, plan []*fileEdit) error {
	// The undoing must happen even when ctx ended, which may be why a step failed.
	undoCtx := context.WithoutCancel(ctx)
	var undo []func() error
	fail := func(err error) error {
		var lost []error
		for i := len(undo) - 1; i >= 0; i-- {
			if uerr := undo[i](); uerr != nil {
				lost = append(lost, uerr)
			}
		}
		if len(lost) > 0 {
			return fmt.Errorf("%w; restoring the files already changed also failed: %w", err, errors.Join(lost...))
		}
		return err
	}
	for _, e := range plan {
		via := e.op.kind != 'D' && writesThroughEditor(env, e.new)
		switch {
		case e.op.kind == 'D':
			if err := os.Remove(e.abs); err != nil {
				return fail(fmt.Errorf("deleting %s: %w", e.op.path, err))
			}
			undo = append(undo, e.restoreDisk)
		case e.dest == e.abs && e.op.kind == 'U' && e.onDisk:
			if err := writeText(ctx, env, e.named, e.abs, e.new, e.mode, via); err != nil {
				return fail(fmt.Errorf("writing %s%s: %w", e.op.path, through(via), err))
			}
			undo = append(undo, e.undoWrite(undoCtx, env, via))
		default: // Add, Update with a move, or Update of a buffer only the editor has
			shown := e.op.path
			if e.op.moveTo != "" {
				shown = e.op.moveTo
			}
			made, err := mkdirs(filepath.Dir(e.dest))
			undo = append(undo, func() error { return removeDirs(made) })
			if err != nil {
				return fail(fmt.Errorf("creating the folder of %s: %w", shown, err))
			}
			if err := writeText(ctx, env, e.dest, e.dest, e.new, e.mode, via); err != nil {
				return fail(fmt.Errorf("writing %s%s: %w", shown, through(via), err))
			}
			undo = append(undo, e.undoCreate(undoCtx, env, via))
			if e.dest != e.abs && e.onDisk {
				if err := os.Remove(e.abs); err != nil {
					return fail(fmt.Errorf("removing %s after moving it: %w", e.op.path, err))
				}
				undo = append(undo, e.restoreDisk)
			}
		}
	}
	return nil
}

// restoreDisk puts back the file on disk a section changed or removed, with its old
// bytes and mode.
func (e *fileEdit) restoreDisk() error {
	if e.link != "" {
		return os.Symlink(e.link, e.abs)
	}
	return writeAtomic(e.abs, e.disk, e.mode)
}

// undoWrite returns the undoing of the write of an existing file: its old text written
// back through the editor when the write went through it, its old bytes on disk else.
func (e *fileEdit) undoWrite(ctx context.Context, env tool.Env, viaEditor bool) func() error {
	if viaEditor {
		return func() error { return env.Editor.WriteText(ctx, e.named, string(e.old)) }
	}
	return e.restoreDisk
}

// undoCreate returns the undoing of the write of e.dest, a file the disk did not have:
// the file is removed, unless it was an unsaved buffer of the editor written through it,
// whose old text is then written back.
func (e *fileEdit) undoCreate(ctx context.Context, env tool.Env, viaEditor bool) func() error {
	if viaEditor && e.op.kind == 'U' && e.dest == e.abs {
		return e.undoWrite(ctx, env, true)
	}
	dest := e.dest
	return func() error {
		if err := os.Remove(dest); err != nil && !errors.Is(err, iofs.ErrNotExist) {
			return err
		}
		return nil
	}
}

// mkdirs creates dir and its missing parents and returns the folders it meant to create,
// the outermost first (also on failure, so that they can be removed).
func mkdirs(dir string) ([]string, error) {
	var missing []string
	for d := dir; ; d = filepath.Dir(d) {
		if _, err := os.Lstat(d); err == nil || d == filepath.Dir(d) {
			break
		}
		missing = append([]string{d}, missing...)
	}
	return missing, os.MkdirAll(dir, 0o755)
}

// removeDirs removes the folders mkdirs created, innermost first, when they are still
// empty; a folder that cannot be removed is left, as it holds nothing of the patch.
func removeDirs(dirs []string) error {
	for i := len(dirs) - 1; i >= 0; i-- {
		os.Remove(dirs[i])
	}
	return nil
}
