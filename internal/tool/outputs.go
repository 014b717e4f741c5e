package tool

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"time"
)

// Outputs keeps the whole text of results the bound cuts, so that the model can read
// what its preview left out instead of running the call again.
type Outputs interface {
	// Save writes text, whole, to a new file named after name (a call's id) and
	// returns the file's absolute path.
	Save(name, text string) (string, error)
}

// DefaultOutputBudget is how many bytes of saved outputs a session keeps: past it,
// its oldest saved outputs are removed first.
const DefaultOutputBudget = 64 << 20

// OutputDir is an Outputs writing into one folder (a session's: outputs/<session id>
// beside the session store), bounded in total size: before a file is written, the
// folder's oldest files are removed until the new one fits in Budget.
type OutputDir struct {
	// Dir is the folder, absolute; it is made on the first save.
	Dir string
	// Budget bounds the folder's files, in bytes (0: DefaultOutputBudget).
	Budget int64
	mu     sync.Mutex
	last   time.Time // the time given to the newest file, so that ages never tie
}

// NewOutputDir returns the Outputs of dir, bounded to budget bytes (0: the default).
func NewOutputDir(dir string, budget int64) *OutputDir {
	return &OutputDir{Dir: dir, Budget: budget}
}

// Save implements Outputs.
func (o *OutputDir) Save(name, text string) (string, error) {
	o.mu.Lock()
	defer o.mu.Unlock()
	budget := o.Budget
	if budget <= 0 {
		budget = DefaultOutputBudget
	}
	if int64(len(text)) > budget {
		return "", fmt.Errorf("the output (%d bytes) is larger than the %d bytes kept of a session's outputs", len(text), budget)
	}
	if err := os.MkdirAll(o.Dir, 0o700); err != nil {
		return "", fmt.Errorf("making the outputs folder: %w", err)
	}
	// The file is made first, so that a name an evicted file had is not given again
	// (an earlier result names it), and is left out of what evict removes.
	f, path, err := create(o.Dir, safeName(name))
	if err != nil {
		return "", err
	}
	if err := o.evict(budget-int64(len(text)), filepath.Base(path)); err != nil {
		f.Close()
		os.Remove(path)
		return "", err
	}
	if _, err := f.WriteString(text); err != nil {
		f.Close()
		os.Remove(path)
		return "", fmt.Errorf("writing %s: %w", path, err)
	}
	if err := f.Close(); err != nil {
		os.Remove(path)
		return "", fmt.Errorf("writing %s: %w", path, err)
	}
	// The file's time orders the eviction: strictly after the last file's, which a
	// coarse file-system clock could give the same time.
	now := time.Now()
	if !now.After(o.last) {
		now = o.last.Add(time.Microsecond)
	}
	o.last = now
	if err := os.Chtimes(path, now, now); err != nil {
		return "", fmt.Errorf("dating %s: %w", path, err)
	}
	return path, nil
}

// evict removes the folder's oldest files, but the one named keep, until the others
// take at most room bytes.
func (o *OutputDir) evict(room int64, keep string) error {
	entries, err := os.ReadDir(o.Dir)
	if err != nil {
		return fmt.Errorf("listing the outputs folder: %w", err)
	}
	type file struct {
		name string
		size int64
		mod  int64
	}
	var files []file
	var total int64
	for _, e := range entries {
		if !e.Type().IsRegular() || e.Name() == keep {
			continue
		}
		info, err := e.Info()
		if errors.Is(err, fs.ErrNotExist) {
			continue
		}
		if err != nil {
			return fmt.Errorf("listing the outputs folder: %w", err)
		}
		files = append(files, file{e.Name(), info.Size(), info.ModTime().UnixNano()})
		total += info.Size()
	}
	sort.Slice(files, func(i, j int) bool {
		if files[i].mod != files[j].mod {
			return files[i].mod < files[j].mod
		}
		return files[i].name < files[j].name
	})
	for _, f := range files {
		if total <= room {
			break
		}
		if err := os.Remove(filepath.Join(o.Dir, f.name)); err != nil && !errors.Is(err, fs.ErrNotExist) {
			return fmt.Errorf("removing an old output: %w", err)
		}
		total -= f.size
	}
	return nil
}

// create makes a new file dir/name.txt, or dir/name-N.txt when that exists (a call id
// seen again: a resumed session's, a standalone run's), never replacing a file that
// an earlier result names.
func create(dir, name string) (*os.File, string, error) {
	for i := 1; ; i++ {
		path := filepath.Join(dir, name+".txt")
		if i > 1 {
			path = filepath.Join(dir, fmt.Sprintf("%s-%d.txt", name, i))
		}
		f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
		if err == nil {
			return f, path, nil
		}
		if !errors.Is(err, fs.ErrExist) || i >= 1000 {
			return nil, "", fmt.Errorf("creating the output's file: %w", err)
		}
	}
}

// safeName is name with every character but letters, digits, '.', '-' and '_'
// replaced by '_', never empty and never starting with a dot.
func safeName(name string) string {
	var b strings.Builder
	for _, r := range name {
		switch {
		case r >= 'a' && r <= 'z', r >= 'A' && r <= 'Z', r >= '0' && r <= '9', r == '-', r == '_', r == '.':
			b.WriteRune(r)
		default:
			b.WriteByte('_')
		}
	}
	s := strings.TrimLeft(b.String(), ".")
	if s == "" {
		s = "output"
	}
	if len(s) > 100 {
		s = s[:100]
	}
	return s
}
