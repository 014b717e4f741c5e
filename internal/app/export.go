package app

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
)

// ExportDir is the session's folder of exported transcripts: exports/<session id>
// in gantry's data folder, beside the session store.
func (a *App) ExportDir() string {
	return filepath.Join(filepath.Dir(StorePath(a.opts)), "exports", a.sess.ID())
}

// Export writes the transcript as Markdown (see Markdown) and returns where, and how
// many bytes. With no name it is gantry-<session id>.md in ExportDir; a relative name
// is in ExportDir too; an absolute path (or ~/…) is used as it is. A file written
// inside the project is gantry's own: checkpoints never keep it, so a rewind neither
// calls it a change made outside gantry nor removes it.
func (a *App) Export(name string) (string, int, error) {
	md, err := a.Markdown()
	if err != nil {
		return "", 0, fmt.Errorf("reading the transcript: %w", err)
	}
	path := name
	switch {
	case name == "":
		path = filepath.Join(a.ExportDir(), "gantry-"+a.sess.ID()+".md")
	case name == "~" || strings.HasPrefix(name, "~/"):
		home, err := os.UserHomeDir()
		if err != nil {
			return "", 0, fmt.Errorf("finding the home folder for %s: %w", name, err)
		}
		path = filepath.Join(home, strings.TrimPrefix(name, "~"))
	case !filepath.IsAbs(name):
		path = filepath.Join(a.ExportDir(), name)
	}
	path = filepath.Clean(path)
	if a.checkpointsOn() && inside(a.opts.Cwd, path) {
		// A project whose checkpoints cannot be kept has none to keep it out of.
		if repo, err := a.checkpointRepo(); err == nil {
			if err := repo.Leave(path); err != nil {
				return "", 0, err
			}
		}
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return "", 0, fmt.Errorf("making the folder of %s: %w", path, err)
	}
	if err := os.WriteFile(path, []byte(md), 0o644); err != nil {
		return "", 0, fmt.Errorf("writing %s: %w", path, err)
	}
	return path, len(md), nil
}

// inside reports whether path lies within the folder dir.
func inside(dir, path string) bool {
	rel, err := filepath.Rel(dir, path)
	return err == nil && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator))
}
