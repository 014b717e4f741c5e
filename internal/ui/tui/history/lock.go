package history

import (
	"errors"
	"os"
)

// openLocked opens the file at path and takes an advisory lock on it (see flock). A
// compaction replaces the file while holding the exclusive lock, so a file found
// replaced once locked is reopened. Where locking is not supported the file is used
// unlocked.
func openLocked(path string, flag int, how lockKind) (*os.File, error) {
	for range 100 {
		f, err := os.OpenFile(path, flag, 0o600)
		if err != nil {
			return nil, err
		}
		if flock(f, how) != nil {
			return f, nil
		}
		held, err1 := f.Stat()
		now, err2 := os.Stat(path)
		if err1 == nil && err2 == nil && os.SameFile(held, now) {
			return f, nil
		}
		f.Close()
		if err2 != nil && !errors.Is(err2, os.ErrNotExist) {
			return nil, err2
		}
	}
	return nil, errors.New("the file keeps being replaced")
}
