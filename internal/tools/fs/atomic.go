package fs

import (
	"fmt"
	"os"
	"path/filepath"
)

// newFileMode is the mode of a file a tool creates.
const newFileMode os.FileMode = 0o644

// writeAtomic replaces path with data: a temporary file in the same folder is written,
// given mode, synced and renamed over path, so a reader sees the old file or the new one,
// never a part. On any failure path is left as it was and the temporary file removed.
func writeAtomic(path string, data []byte, mode os.FileMode) (err error) {
	dir, base := filepath.Split(path)
	if dir == "" {
		dir = "."
	}
	tmp, err := os.CreateTemp(dir, "."+base+".gantry-*.tmp")
	if err != nil {
		return err
	}
	defer func() {
		if err != nil {
			tmp.Close()
			os.Remove(tmp.Name())
		}
	}()
	if _, err = tmp.Write(data); err != nil {
		return err
	}
	if err = tmp.Chmod(mode.Perm()); err != nil {
		return err
	}
	if err = tmp.Sync(); err != nil {
		return err
	}
	if err = tmp.Close(); err != nil {
		return err
	}
	if err = os.Rename(tmp.Name(), path); err != nil {
		return err
	}
	syncDir(dir)
	return nil
}

// syncDir makes a rename in dir durable; failures are ignored (not every system can).
func syncDir(dir string) {
	if d, err := os.Open(dir); err == nil {
		d.Sync()
		d.Close()
	}
}

// writeTarget returns the file a write to abs should replace: the end of a symlink chain
// when abs is a link, so that the link survives; abs itself otherwise.
func writeTarget(abs string) string {
	if fi, err := os.Lstat(abs); err == nil && fi.Mode()&os.ModeSymlink != 0 {
		if real, err := filepath.EvalSymlinks(abs); err == nil {
			return real
		}
	}
	return abs
}

// writeFailure turns a failed write into a sentence for the model.
func writeFailure(shown string, err error) string {
	return fmt.Sprintf("%s could not be written (%s); the file was left as it was.", shown, bareError(err))
}
