package config

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
)

// MemoryNames are the memory file names looked for in each folder, in order.
var MemoryNames = []string{"AGENTS.md", "CLAUDE.md"}

// MaxMemory bounds the assembled memory text, in bytes.
const MaxMemory = 100 << 10

// maxImportDepth is how deep @imports are followed: a memory file's imports are at
// depth 1, their imports at depth 2, …
const maxImportDepth = 5

// MemoryFiles is the memory given to the model: the text of every memory file and of
// what they import, each labelled with its path.
type MemoryFiles struct {
	Text string
	// Files are the files read, in the order of Text.
	Files []string
	// Truncated says that Text was cut at MaxMemory.
	Truncated bool
}

// Memory gathers the memory files for a session in cwd: AGENTS.md then CLAUDE.md from
// UserDir, then from each folder from the project root down to cwd. A file's @path
// imports are added after it, recursively (see imports); each file is read once.
func Memory(cwd string) (MemoryFiles, error) {
	cwd = absClean(cwd)
	folders := append([]string{absClean(UserDir())}, lineage(ProjectRoot(cwd), cwd)...)
	a := assembler{seen: map[string]bool{}}
	for _, dir := range folders {
		for _, name := range MemoryNames {
			if err := a.add(filepath.Join(dir, name), "", 0); err != nil {
				return MemoryFiles{}, err
			}
		}
	}
	return a.result(), nil
}

// lineage returns root, then each folder below it down to dir; just dir when dir is
// not inside root.
func lineage(root, dir string) []string {
	rel, err := filepath.Rel(root, dir)
	if err != nil || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
		return []string{dir}
	}
	out := []string{root}
	if rel == "." {
		return out
	}
	cur := root
	for _, part := range strings.Split(rel, string(filepath.Separator)) {
		cur = filepath.Join(cur, part)
		out = append(out, cur)
	}
	return out
}

type assembler struct {
	b         strings.Builder
	files     []string
	seen      map[string]bool
	truncated bool
}

// add appends the file at path (if it exists and was not added already) and then its
// imports. importedBy names the file that imports it, "" for a memory file.
func (a *assembler) add(path, importedBy string, depth int) error {
	path = filepath.Clean(path)
	key := path
	if real, err := filepath.EvalSymlinks(path); err == nil {
		key = real // the same file through two names is still read once
	}
	if a.seen[key] || a.truncated {
		return nil // already there (or an import cycle), or no room left
	}
	data, err := os.ReadFile(path)
	switch {
	case errors.Is(err, fs.ErrNotExist), isDirErr(path, err):
		return nil
	case err != nil:
		return fmt.Errorf("memory file: %w", err)
	}
	a.seen[key] = true
	a.files = append(a.files, path)
	text := strings.TrimRight(string(data), "\n")
	if importedBy == "" {
		a.write(fmt.Sprintf("Contents of %s:\n\n%s\n\n", path, text))
	} else {
		a.write(fmt.Sprintf("Contents of %s (imported by %s):\n\n%s\n\n", path, importedBy, text))
	}
	if depth >= maxImportDepth {
		return nil
	}
	for _, imp := range imports(text, filepath.Dir(path)) {
		if err := a.add(imp, path, depth+1); err != nil {
			return err
		}
	}
	return nil
}

func isDirErr(path string, err error) bool {
	if err == nil {
		return false
	}
	fi, serr := os.Stat(path)
	return serr == nil && fi.IsDir()
}

// write appends s, or as much of it as MaxMemory leaves room for.
func (a *assembler) write(s string) {
	if a.truncated {
		return
	}
	if room := MaxMemory - a.b.Len(); len(s) > room {
		cut := strings.ToValidUTF8(s[:max(room, 0)], "")
		a.b.WriteString(cut)
		a.b.WriteString(fmt.Sprintf("\n\n[memory cut at %d KB: the rest of the memory files is left out]\n", MaxMemory>>10))
		a.truncated = true
		return
	}
	a.b.WriteString(s)
}

func (a *assembler) result() MemoryFiles {
	return MemoryFiles{Text: strings.TrimRight(a.b.String(), "\n"), Files: a.files, Truncated: a.truncated}
}
