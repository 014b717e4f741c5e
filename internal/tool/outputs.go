package tool

import (
	"context"
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

// DefaultOutputTotal is how many bytes of saved outputs all sessions keep together
// (sessions are kept, so their folders add up): past it, the oldest saved outputs of
// any session are removed first.
const DefaultOutputTotal = 512 << 20

// OutputDir is an Outputs writing into one folder (a session's: outputs/<session id>
// beside the session store), bounded in total size: before a file is written, the
// folder's oldest files are removed until the new one fits in Budget, then the oldest
// files of the folders beside it (the other sessions') until all fit in Total.
type OutputDir struct {
	// Dir is the folder, absolute; it is made on the first save.
	Dir string
	// Budget bounds the folder's files, in bytes (0: DefaultOutputBudget).
	Budget int64
	// Total bounds the files of Dir's parent's folders together, in bytes (0:
	// DefaultOutputTotal).
	Total int64
	mu    sync.Mutex
	last  time.Time // the time given to the newest file, so that ages never tie
}

// NewOutputDir returns the Outputs of dir, bounded to budget bytes (0: the default)
// and, with the folders beside it, to DefaultOutputTotal.
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
	// The file is made first, so that it never takes the name of a file this save
	// removes (an earlier result names that one), and evict leaves it alone.
	f, path, err := create(o.Dir, safeName(name))
	if err != nil {
		return "", err
	}
	total := o.Total
	if total <= 0 {
		total = DefaultOutputTotal
	}
	err = evict([]string{o.Dir}, budget-int64(len(text)), path)
	if err == nil {
		err = evict(siblings(o.Dir), total-int64(len(text)), path)
	}
	if err != nil {
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

// evict removes the oldest files of dirs, but keep, until the others take at most
// room bytes.
func evict(dirs []string, room int64, keep string) error {
	type file struct {
		path string
		size int64
		mod  int64
	}
	var files []file
	var total int64
	for _, dir := range dirs {
		entries, err := os.ReadDir(dir)
		if errors.Is(err, fs.ErrNotExist) {
			continue
		}
		if err != nil {
			return fmt.Errorf("listing the outputs folder: %w", err)
		}
		for _, e := range entries {
			path := filepath.Join(dir, e.Name())
			if !e.Type().IsRegular() || path == keep {
				continue
			}
			info, err := e.Info()
			if errors.Is(err, fs.ErrNotExist) {
				continue
			}
			if err != nil {
				return fmt.Errorf("listing the outputs folder: %w", err)
			}
			files = append(files, file{path, info.Size(), info.ModTime().UnixNano()})
			total += info.Size()
		}
	}
	if total <= room {
		return nil
	}
	sort.Slice(files, func(i, j int) bool {
		if files[i].mod != files[j].mod {
			return files[i].mod < files[j].mod
		}
		return files[i].path < files[j].path
	})
	for _, f := range files {
		if total <= room {
			break
		}
		if err := os.Remove(f.path); err != nil && !errors.Is(err, fs.ErrNotExist) {
			return fmt.Errorf("removing an old output: %w", err)
		}
		total -= f.size
	}
	return nil
}

// siblings are the folders in dir's parent, dir included.
func siblings(dir string) []string {
	parent := filepath.Dir(dir)
	entries, err := os.ReadDir(parent)
	if err != nil {
		return []string{dir}
	}
	var out []string
	for _, e := range entries {
		if e.IsDir() {
			out = append(out, filepath.Join(parent, e.Name()))
		}
	}
	return out
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

// ErrNoOutputs is SaveWhole's error where nothing keeps cut outputs (a tool run
// outside the loop and `gantry tool`).
var ErrNoOutputs = errors.New("nothing keeps cut outputs here")

type outputsKey struct{}

// WithOutputs gives the calls run under ctx the Outputs that keeps their results
// whole: the loop sets it, for a tool that bounds its own result and keeps the whole
// of what it cut (web_fetch's page).
func WithOutputs(ctx context.Context, out Outputs) context.Context {
	if out == nil {
		return ctx
	}
	return context.WithValue(ctx, outputsKey{}, out)
}

// SaveWhole saves text whole for the call ctx runs, named by its CallID, and returns
// the file's path; an error says why it could not (nothing keeps outputs here).
func SaveWhole(ctx context.Context, text string) (string, error) {
	out, _ := ctx.Value(outputsKey{}).(Outputs)
	if out == nil {
		return "", ErrNoOutputs
	}
	name := CallID(ctx)
	if name == "" {
		name = "output"
	}
	return out.Save(name, text)
}

// FitIn is Fit for a tool that bounds its own result (a project checker's output):
// the Outputs and the call's id are the ones the loop put on ctx, so the note names
// the same folder, and the loop's bound then leaves the result as it is.
func FitIn(ctx context.Context, r Result, max int) Result {
	out, _ := ctx.Value(outputsKey{}).(Outputs)
	name := CallID(ctx)
	if name == "" {
		name = "output"
	}
	return Fit(r, max, out, name)
}
