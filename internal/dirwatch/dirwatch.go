// Package dirwatch keeps a journal of changes in watched folders, read without
// blocking: a cache of files asks it once which of its files may have changed since
// it last asked, instead of calling stat on each of them (docs/benchmarks.md,
// "Through gantry").
//
// On Linux the journal is an inotify instance: the kernel queues an event for an
// entry of a watched folder during the system call that changes it (a write, a
// truncate, a create, a rename, a delete, a change of mode or times), so an entry
// read after its folder was watched is known to be unchanged until an event names it,
// and a Drain sees every change completed before it began. Elsewhere, and when the
// kernel refuses an instance or a watch, Watch returns false and the caller keeps
// checking its files itself.
//
// What inotify does not see, and a stat would: a file written through a hard link in
// a folder that is not watched, and a file changed through a shared memory mapping.
package dirwatch

import (
	"path/filepath"
	"sync"
)

// maxFolders bounds the folders one journal watches (each is a kernel watch, of a
// per-user limit shared with other programs); past it Watch returns false.
const maxFolders = 1024

// Journal is one queue of changes in the folders it watches. Its methods are safe for
// concurrent use. The zero value and nil watch nothing.
type Journal struct {
	mu      sync.Mutex
	q       queue            // nil: no kernel support
	folders map[string]int   // watched folder → its watch
	byWatch map[int][]string // watch → the folders it stands for (a folder can have several names)
	failed  map[string]bool  // folders the kernel refused to watch
}

// queue is the kernel's side of a journal.
type queue interface {
	add(folder string) (watch int, err error)
	// read returns the events queued, without blocking: an entry name of a watch's
	// folder changed, or (gone) the folder itself went away and its watch with it;
	// overflow means some were lost.
	read(emit func(watch int, name string, gone bool)) (overflow bool, err error)
	close() error
}

// New opens a journal; on a system without one it returns a journal whose Watch
// always returns false.
func New() *Journal {
	j := &Journal{folders: map[string]int{}, byWatch: map[int][]string{}, failed: map[string]bool{}}
	if q, err := openQueue(); err == nil {
		j.q = q
	}
	return j
}

// Watch makes sure folder (absolute, clean) is watched and says whether it is: an
// entry of it read after Watch returned true is unchanged until Drain names it.
func (j *Journal) Watch(folder string) bool {
	if j == nil {
		return false
	}
	j.mu.Lock()
	defer j.mu.Unlock()
	if j.q == nil || j.failed[folder] {
		return false
	}
	if _, ok := j.folders[folder]; ok {
		return true
	}
	if len(j.folders) >= maxFolders {
		return false
	}
	w, err := j.q.add(folder)
	if err != nil {
		j.failed[folder] = true // (a folder that does not exist yet is tried again after a Drain says so)
		return false
	}
	j.folders[folder] = w
	j.byWatch[w] = append(j.byWatch[w], folder)
	return true
}

// Changes is what one Drain found.
type Changes struct {
	// Paths are the entries of watched folders changed (created, written, renamed,
	// removed, their mode or times set) since the last Drain.
	Paths map[string]bool
	// Folders are watched folders that went away (removed, renamed) or whose watch the
	// kernel dropped: every entry under them is to be taken as changed. They are no
	// longer watched.
	Folders []string
	// All means the kernel lost events (its queue overflowed) or cannot be read: every
	// entry is to be taken as changed.
	All bool
}

// Any says whether c holds a change.
func (c Changes) Any() bool { return c.All || len(c.Paths) > 0 || len(c.Folders) > 0 }

// Changed says whether path is changed by c.
func (c Changes) Changed(path string) bool {
	if c.All || c.Paths[path] {
		return true
	}
	for _, f := range c.Folders {
		if path == f || (len(path) > len(f) && path[:len(f)] == f && (f == "/" || path[len(f)] == filepath.Separator)) {
			return true
		}
	}
	return false
}

// Drain returns the changes queued since the last Drain, without blocking (one read
// of the kernel's queue when nothing changed).
func (j *Journal) Drain() Changes {
	if j == nil {
		return Changes{}
	}
	j.mu.Lock()
	defer j.mu.Unlock()
	var c Changes
	if j.q == nil {
		return c
	}
	overflow, err := j.q.read(func(w int, name string, gone bool) {
		for _, f := range j.byWatch[w] {
			if gone {
				c.Folders = append(c.Folders, f)
				delete(j.folders, f)
				continue
			}
			if c.Paths == nil {
				c.Paths = map[string]bool{}
			}
			c.Paths[filepath.Join(f, name)] = true
		}
		if gone {
			delete(j.byWatch, w)
		}
	})
	if overflow || err != nil {
		c.All = true
	}
	if len(c.Paths) > 0 || len(c.Folders) > 0 || c.All {
		clear(j.failed) // a folder refused before may exist now
	}
	return c
}

// Close releases the kernel's queue; the journal then watches nothing.
func (j *Journal) Close() error {
	if j == nil {
		return nil
	}
	j.mu.Lock()
	defer j.mu.Unlock()
	if j.q == nil {
		return nil
	}
	err := j.q.close()
	j.q = nil
	clear(j.folders)
	clear(j.byWatch)
	return err
}
