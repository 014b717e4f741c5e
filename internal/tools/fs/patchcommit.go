package fs

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
)

// commitPatch performs a planned patch on the disk. Each file is written atomically; if
// one step fails, the steps already done are undone in reverse order, so the files end as
// they were. The error says what failed, and what could not be restored if anything.
func commitPatch(plan []*fileEdit) error {
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
		switch {
		case e.op.kind == 'D':
			if err := os.Remove(e.abs); err != nil {
				return fail(fmt.Errorf("deleting %s: %w", e.op.path, err))
			}
			undo = append(undo, e.restore)
		case e.dest == e.abs && e.op.kind == 'U':
			if err := writeAtomic(e.abs, e.new, e.mode); err != nil {
				return fail(fmt.Errorf("writing %s: %w", e.op.path, err))
			}
			undo = append(undo, e.restore)
		default: // Add, or Update with a move
			shown := e.op.path
			if e.op.kind == 'U' {
				shown = e.op.moveTo
			}
			made, err := mkdirs(filepath.Dir(e.dest))
			undo = append(undo, func() error { return removeDirs(made) })
			if err != nil {
				return fail(fmt.Errorf("creating the folder of %s: %w", shown, err))
			}
			if err := writeAtomic(e.dest, e.new, e.mode); err != nil {
				return fail(fmt.Errorf("writing %s: %w", shown, err))
			}
			dest := e.dest
			undo = append(undo, func() error { return os.Remove(dest) })
			if e.op.kind == 'U' {
				if err := os.Remove(e.abs); err != nil {
					return fail(fmt.Errorf("removing %s after moving it: %w", e.op.path, err))
				}
				undo = append(undo, e.restore)
			}
		}
	}
	return nil
}

// restore puts back the file a section changed, with its old content and mode.
func (e *fileEdit) restore() error {
	if e.link != "" {
		return os.Symlink(e.link, e.abs)
	}
	return writeAtomic(e.abs, e.old, e.mode)
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
