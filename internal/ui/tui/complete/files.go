package complete

import (
	"context"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/gantry-dev/gantry/internal/walk"
)

// Bounds of the walk behind Files, so that a huge tree costs no more than a keystroke.
const (
	maxVisit = 20000                  // entries (files and folders) looked at
	budget   = 100 * time.Millisecond // time spent walking
)

// Files returns up to limit (all when limit <= 0) files and folders under the project
// folder root matching prefix, what was typed after "@": the project's relative paths,
// slash-separated, folders ending with "/". Exact prefixes of the path rank first, then
// prefixes of the base name, then fuzzy matches; shorter paths win ties.
//
// The tree is walked as package walk does (ignore files honoured, .git and hidden
// entries skipped, hidden ones listed when the typed name starts with a dot), stopping
// after 20,000 entries or 100 ms: on a huge tree the matches come from the part seen.
// When the folder part of prefix is a folder of the project (internal for
// "internal/ag"), reached without symbolic links, only that folder is walked, even when
// it is ignored, as a shell completes a typed path.
func Files(root, prefix string, limit int) []Candidate {
	c, _ := files(root, prefix, limit, maxVisit, budget)
	return c
}

// walkStats tells the tests how much a walk looked at.
type walkStats struct {
	examined int64 // entries the walker asked about
	admitted int64 // of which let through
	stopped  bool  // the walk was cut short
}

func files(root, prefix string, limit, maxVisit int, budget time.Duration) ([]Candidate, walkStats) {
	sub := scope(root, prefix)
	hidden := strings.HasPrefix(prefix[strings.LastIndexByte(prefix, '/')+1:], ".")
	paths, st, err := collect(filepath.Join(root, filepath.FromSlash(sub)), hidden, maxVisit, budget)
	if err != nil {
		return nil, st
	}
	m, low := newMatcher(prefix), strings.ToLower(prefix)
	var rs []ranked
	dirs := make(map[string]bool)
	for _, p := range paths {
		p = sub + p
		rs = rank(rs, m, low, Candidate{Text: p, Display: p, Kind: KindFile}, p, path.Base(p))
		for d := p; ; {
			i := strings.LastIndexByte(d, '/')
			if i < len(sub) || dirs[d[:i+1]] {
				break
			}
			d = d[:i]
			dirs[d+"/"] = true
		}
	}
	for d := range dirs {
		if d == prefix {
			continue // nothing to add
		}
		rs = rank(rs, m, low, Candidate{Text: d, Display: d, Kind: KindDir}, d, path.Base(d)+"/")
	}
	sortRanked(rs, true)
	return candidates(rs, limit), st
}

// scope returns the folder part of prefix ("internal/" for "internal/ag") when it is a
// real folder below root, reached without symbolic links and outside .git, else "".
func scope(root, prefix string) string {
	i := strings.LastIndexByte(prefix, '/')
	if i <= 0 {
		return ""
	}
	dir := prefix[:i]
	if path.Clean(dir) != dir || !filepath.IsLocal(filepath.FromSlash(dir)) {
		return ""
	}
	at := root
	for part := range strings.SplitSeq(dir, "/") {
		if part == ".git" {
			return ""
		}
		at = filepath.Join(at, part)
		fi, err := os.Lstat(at)
		if err != nil || !fi.IsDir() {
			return ""
		}
	}
	return dir + "/"
}

// collect walks dir within the bounds and returns the relative paths of its files.
func collect(dir string, hidden bool, maxVisit int, budget time.Duration) ([]string, walkStats, error) {
	ctx, cancel := context.WithTimeout(context.Background(), budget)
	defer cancel()
	var examined, admitted atomic.Int64
	var mu sync.Mutex
	var paths []string
	o := walk.Options{
		Hidden: hidden,
		Override: func(string, bool) walk.Verdict {
			examined.Add(1)
			if admitted.Add(1) > int64(maxVisit) {
				admitted.Add(-1)
				cancel()
				return walk.Exclude
			}
			return walk.None
		},
	}
	err := walk.Walk(ctx, dir, o, func(rel string, _ fs.DirEntry) {
		mu.Lock()
		paths = append(paths, rel)
		mu.Unlock()
	})
	st := walkStats{examined: examined.Load(), admitted: admitted.Load(), stopped: ctx.Err() != nil}
	if err != nil && ctx.Err() == nil {
		return nil, st, err
	}
	return paths, st, nil
}
