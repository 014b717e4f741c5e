package lsptool

import (
	"fmt"
	"os"
	"path/filepath"
)

// The queried file, kept without a stat per call.
//
// A watched entry of the file cache is unchanged until the journal names it, but the
// file a query names must also still exist under that name, and a rename of a folder
// above its own reaches no watch of that folder. So the queried file's entry is
// anchored: every folder from the file's up to the workspace is watched as well (a
// folder renamed or removed ends its own watch, which the journal reports, and refresh
// then drops every entry under it), after which the entry is trusted without a stat
// until the journal names a change. That stat was the largest part of a warm query's
// own time (docs/benchmarks.md, "Warm queries beyond references"). A rename of a
// folder above the workspace itself is not seen, as it is not by the Manager's roots.

// queried returns the content of path, a file inside workspace that a query names:
// an anchored entry at once, else after a stat (get), anchoring the entry read.
func (c *fileCache) queried(path, workspace string) (*fileText, error) {
	c.mu.Lock()
	e := c.m[path]
	c.mu.Unlock()
	if e != nil && e.anchored {
		return e, nil
	}
	f, err := c.get(path)
	if err != nil || !f.watched {
		return f, err
	}
	j := c.watcher(false)
	for d := filepath.Dir(path); d != workspace; {
		up := filepath.Dir(d)
		if up == d || !inside(up, workspace) {
			return f, nil // not below the workspace: checked by stat each time
		}
		if !j.Watch(up) {
			return f, nil
		}
		d = up
	}
	// Watched, then checked: a rename before the watches is seen here, one after them
	// by the journal.
	if err := f.still(path); err != nil {
		return f, nil // the next call reads it again
	}
	anchored := *f
	anchored.anchored = true
	c.mu.Lock()
	if c.m[path] == f {
		c.m[path] = &anchored
	}
	c.mu.Unlock()
	return &anchored, nil
}

// still says whether the file at path is a regular file of f's size and time.
func (f *fileText) still(path string) error {
	fi, err := os.Stat(path)
	switch {
	case err != nil:
		return err
	case !fi.Mode().IsRegular():
		return fmt.Errorf("not a regular file")
	case fi.Size() != f.size || !fi.ModTime().Equal(f.mtime):
		return fmt.Errorf("changed while read")
	}
	return nil
}
