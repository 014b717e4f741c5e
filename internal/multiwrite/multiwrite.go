// Package multiwrite writes several files as one change: all of them or none.
package multiwrite

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
)

// File is one file of a change: its content expected before, its content after.
type File struct {
	Path string      // absolute
	Old  string      // what the file must hold when the change is written
	New  string      // what it holds after
	Mode os.FileMode // its permission bits
}

// rename is os.Rename (a test makes it fail half-way).
var rename = os.Rename

// ErrChanged is the error of a file that no longer holds its Old content: a
// *ChangedError, which names it.
var ErrChanged = errors.New("changed since the change was prepared")

// ChangedError says which file no longer holds its Old content.
type ChangedError struct{ Path string }

func (e *ChangedError) Error() string { return e.Path + " " + ErrChanged.Error() }

// Is makes errors.Is(err, ErrChanged) hold.
func (e *ChangedError) Is(target error) bool { return target == ErrChanged }

// Write writes every file or none. Each file is checked to hold its Old content, then
// each new content goes to a temporary file beside its target; only when all are
// written (and synced) are they renamed over the targets, and a failed rename puts
// back the files already replaced. No temporary file is left behind.
func Write(files []File) (err error) {
	tmps := make([]string, len(files))
	defer func() {
		for _, t := range tmps {
			if t != "" {
				_ = os.Remove(t)
			}
		}
	}()
	for _, f := range files {
		cur, err := os.ReadFile(f.Path)
		if err != nil {
			return fmt.Errorf("%s: %w", f.Path, err)
		}
		if string(cur) != f.Old {
			return &ChangedError{Path: f.Path}
		}
	}
	for i, f := range files {
		t, err := os.CreateTemp(filepath.Dir(f.Path), "."+filepath.Base(f.Path)+".gantry-*.tmp")
		if err != nil {
			return err
		}
		tmps[i] = t.Name()
		_, werr := t.WriteString(f.New)
		if werr = errors.Join(werr, t.Chmod(f.Mode.Perm()), t.Sync(), t.Close()); werr != nil {
			return werr
		}
	}
	for i, f := range files {
		if err := rename(tmps[i], f.Path); err != nil {
			var undo []error
			for _, done := range files[:i] {
				undo = append(undo, os.WriteFile(done.Path, []byte(done.Old), done.Mode.Perm()))
			}
			if u := errors.Join(undo...); u != nil {
				return fmt.Errorf("%w (and putting back the files already written failed: %v)", err, u)
			}
			return err
		}
		tmps[i] = ""
	}
	return nil
}
