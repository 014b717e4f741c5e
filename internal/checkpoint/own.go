package checkpoint

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
)

// ownFile lists, one a line and relative to the project, the files gantry wrote into
// the project of its own (a transcript /export wrote there): no checkpoint of any
// session of the project keeps them, and no rewind touches them.
const ownFile = "gantry-own"

// Leave makes the file at path, which gantry writes into the project of its own, one
// that checkpoints never keep nor restore: from the next snapshot on it is out of the
// shadow index, so it is never "changed outside gantry" nor removed by a rewind. A
// path outside the project is left alone (checkpoints never see it).
func (r *Repo) Leave(path string) error {
	abs, err := filepath.Abs(path)
	if err != nil {
		return err
	}
	rel, err := filepath.Rel(r.work, abs)
	if err != nil || rel == "." || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
		return nil
	}
	rel = filepath.ToSlash(rel)
	defer r.lock()()
	if slices.Contains(r.own(), rel) {
		return nil
	}
	f, err := os.OpenFile(filepath.Join(r.dir, ownFile), os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o600)
	if err != nil {
		return fmt.Errorf("keeping %s out of the checkpoints: %w", rel, err)
	}
	if _, err := f.WriteString(rel + "\n"); err != nil {
		f.Close()
		return fmt.Errorf("keeping %s out of the checkpoints: %w", rel, err)
	}
	return f.Close()
}

// own are the files Leave named (read under the repository's lock).
func (r *Repo) own() []string {
	b, err := os.ReadFile(filepath.Join(r.dir, ownFile))
	if err != nil {
		return nil
	}
	var out []string
	for _, l := range strings.Split(string(b), "\n") {
		if l != "" {
			out = append(out, l)
		}
	}
	return out
}

// left are the paths never kept nor restored but the folders of never: those the
// session may not read, and gantry's own files.
func (r *Repo) left() []string { return append(slices.Clone(r.secret), r.own()...) }
