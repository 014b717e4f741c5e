package app

import (
	"os"
	"slices"
)

// Memory file states, as /memory shows them.
const (
	MemoryAtStart = "read at the start"
	MemoryAdded   = "added since"
	MemoryWaiting = "waiting for its paths"
)

// MemoryFile is one memory file of the session.
type MemoryFile struct {
	Path string
	// Size is the file's size in bytes now; -1 when it cannot be read.
	Size int64
	// State is MemoryAtStart, MemoryAdded or MemoryWaiting.
	State string
	// Globs are a waiting rule's paths patterns.
	Globs []string
}

// MemoryFiles lists the memory files in force, in the order the model was given them:
// those read at the start, those added since as calls touched folders below the
// working directory or files of a rule's paths; then the rules whose paths no file
// touched yet matched. Truncated says the memory was cut at its bound.
func (a *App) MemoryFiles() (files []MemoryFile, truncated bool) {
	size := func(p string) int64 {
		fi, err := os.Stat(p)
		if err != nil {
			return -1
		}
		return fi.Size()
	}
	for _, p := range a.memory.Files {
		files = append(files, MemoryFile{Path: p, Size: size(p), State: MemoryAtStart})
	}
	for _, p := range a.nested.Given() {
		files = append(files, MemoryFile{Path: p, Size: size(p), State: MemoryAdded})
	}
	for _, r := range a.nested.Pending() {
		if !slices.ContainsFunc(files, func(f MemoryFile) bool { return f.Path == r.Path }) { // imported already
			files = append(files, MemoryFile{Path: r.Path, Size: size(r.Path), State: MemoryWaiting, Globs: r.Globs})
		}
	}
	return files, a.memory.Truncated || a.nested.Truncated()
}
