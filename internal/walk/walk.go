package walk

import (
	"context"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"sort"
	"strings"
	"sync"
)

// Options change what Walk lists.
type Options struct {
	// Hidden lists hidden files and directories too (.git directories stay skipped).
	Hidden bool
	// NoIgnore disregards every ignore file.
	NoIgnore bool
	// Override, when set, is asked first about every entry, like ripgrep's --glob:
	// Include keeps it whatever the ignore rules and the hidden convention say, Exclude
	// drops it (a directory is then not entered).
	Override func(rel string, isDir bool) Verdict
	// Types, when set, is asked after the ignore rules, like ripgrep's --type: Exclude
	// drops the entry, Include keeps it even when it is hidden.
	Types func(rel string, isDir bool) Verdict
	// OnError, when set, hears of the directories that could not be read below the
	// root (it may be called concurrently); they are skipped either way.
	OnError func(rel string, err error)
	// Workers is the number of goroutines; 0 means GOMAXPROCS.
	Workers int
}

// Walk calls visit for every regular file under the directory root that the rules keep
// (see the package documentation), with its path relative to root. visit is called
// concurrently from several goroutines and in no particular order. Walk returns an
// error when root cannot be read or is not a directory, or ctx's error when it was
// cancelled; it returns only after the last visit has returned.
func Walk(ctx context.Context, root string, o Options, visit func(rel string, d fs.DirEntry)) error {
	abs, err := filepath.Abs(root)
	if err != nil {
		return err
	}
	fi, err := os.Stat(abs)
	if err != nil {
		return err
	}
	if !fi.IsDir() {
		return fmt.Errorf("%s is not a directory", root)
	}
	w := &walker{ctx: ctx, o: o, visit: visit}
	w.cond = sync.NewCond(&w.mu)
	top, prefix := w.rootFrame(abs)
	w.prefixLen = len(prefix)
	first, err := w.readDir(abs)
	if err != nil {
		return err
	}
	w.pending = 1
	w.stack = append(w.stack, job{abs: abs, full: prefix, fr: top, entries: first})
	n := o.Workers
	if n <= 0 {
		n = runtime.GOMAXPROCS(0)
	}
	var wg sync.WaitGroup
	for range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			w.work()
		}()
	}
	wg.Wait()
	return ctx.Err()
}

// Files returns the paths Walk visits, sorted: the collector tests and small callers use.
func Files(ctx context.Context, root string, o Options) ([]string, error) {
	var mu sync.Mutex
	var out []string
	err := Walk(ctx, root, o, func(rel string, _ fs.DirEntry) {
		mu.Lock()
		out = append(out, rel)
		mu.Unlock()
	})
	sort.Strings(out)
	return out, err
}

type job struct {
	abs     string // absolute path of the directory
	full    string // its path relative to the base, with a trailing slash unless ""
	fr      *frame
	entries []fs.DirEntry // already read (the root), or nil
}

type walker struct {
	ctx       context.Context
	o         Options
	visit     func(string, fs.DirEntry)
	prefixLen int // length of the root's base-relative prefix

	mu      sync.Mutex
	cond    *sync.Cond
	stack   []job
	pending int // directories queued or being read
}

// rootFrame builds the frames of the root's ancestors up to the nearest repository root
// (when there is one) and of the root itself; prefix is the root relative to that base.
func (w *walker) rootFrame(abs string) (*frame, string) {
	top := &frame{}
	if w.o.NoIgnore {
		return top, ""
	}
	var chain []string // abs paths from the root up to the base
	base := abs
	for d := abs; ; {
		chain = append(chain, d)
		if exists(filepath.Join(d, ".git")) {
			base = d
			break
		}
		up := filepath.Dir(d)
		if up == d {
			chain = chain[:1] // not in a repository: only the root's own files
			break
		}
		d = up
	}
	prefix := ""
	if base != abs {
		rel, _ := filepath.Rel(base, abs)
		prefix = filepath.ToSlash(rel) + "/"
	}
	top.rootLen = len(prefix)
	if exists(filepath.Join(base, ".git")) || base != abs {
		top.global = globalExcludes()
	}
	fr := top
	for i := len(chain) - 1; i >= 0; i-- {
		d := chain[i]
		dir := ""
		if d != base {
			rel, _ := filepath.Rel(base, d)
			dir = filepath.ToSlash(rel) + "/"
		}
		fr = fr.child(d, dir, exists(filepath.Join(d, ".ignore")), exists(filepath.Join(d, ".gitignore")), exists(filepath.Join(d, ".git")))
	}
	return fr, prefix
}

func exists(p string) bool {
	_, err := os.Lstat(p)
	return err == nil
}

func (w *walker) readDir(abs string) ([]fs.DirEntry, error) {
	f, err := os.Open(abs)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return f.ReadDir(-1)
}

func (w *walker) work() {
	for {
		w.mu.Lock()
		for len(w.stack) == 0 && w.pending > 0 {
			w.cond.Wait()
		}
		if w.pending == 0 {
			w.mu.Unlock()
			return
		}
		j := w.stack[len(w.stack)-1]
		w.stack = w.stack[:len(w.stack)-1]
		w.mu.Unlock()

		if w.ctx.Err() == nil {
			w.process(j)
		}

		w.mu.Lock()
		w.pending--
		if w.pending == 0 {
			w.cond.Broadcast()
		}
		w.mu.Unlock()
	}
}

// push queues the subdirectories of a directory before its files are visited, so that
// idle workers get them early.
func (w *walker) push(subdirs []job) {
	if len(subdirs) == 0 {
		return
	}
	w.mu.Lock()
	w.stack = append(w.stack, subdirs...)
	w.pending += len(subdirs)
	if len(subdirs) > 1 {
		w.cond.Broadcast()
	} else {
		w.cond.Signal()
	}
	w.mu.Unlock()
}

// process reads one directory, queues its subdirectories and visits its files.
func (w *walker) process(j job) {
	entries := j.entries
	if entries == nil {
		var err error
		entries, err = w.readDir(j.abs)
		if err != nil {
			if w.o.OnError != nil {
				w.o.OnError(strings.TrimSuffix(j.full[w.prefixLen:], "/"), err)
			}
			return
		}
	}
	fr := j.fr
	if !w.o.NoIgnore && j.entries == nil {
		var hasIgnore, hasGitignore, hasGit bool
		for _, e := range entries {
			switch e.Name() {
			case ".ignore":
				hasIgnore = true
			case ".gitignore":
				hasGitignore = true
			case ".git":
				hasGit = true
			}
		}
		fr = fr.child(j.abs, j.full, hasIgnore, hasGitignore, hasGit)
	}
	var subdirs []job
	files := entries[:0:0]
	for _, e := range entries {
		name := e.Name()
		t := e.Type()
		isDir := t.IsDir()
		if !isDir && !t.IsRegular() {
			continue // symbolic links, devices, pipes, sockets
		}
		if isDir && name == ".git" {
			continue
		}
		full := j.full + name
		if !w.keep(fr, full, name, isDir) {
			continue
		}
		if isDir {
			subdirs = append(subdirs, job{abs: j.abs + string(filepath.Separator) + name, full: full + "/", fr: fr})
		} else {
			files = append(files, e)
		}
	}
	w.push(subdirs)
	for _, e := range files {
		if w.ctx.Err() != nil {
			return
		}
		w.visit(j.full[w.prefixLen:]+e.Name(), e)
	}
}

// keep decides about one entry with ripgrep's order: override, ignore rules, types,
// then the hidden convention unless something whitelisted the entry.
func (w *walker) keep(fr *frame, full, name string, isDir bool) bool {
	rel := full[w.prefixLen:]
	if w.o.Override != nil {
		switch w.o.Override(rel, isDir) {
		case Include:
			return true
		case Exclude:
			return false
		}
	}
	whitelisted := false
	if !w.o.NoIgnore {
		switch fr.match(full, isDir) {
		case Exclude:
			return false
		case Include:
			whitelisted = true
		}
	}
	if w.o.Types != nil {
		switch w.o.Types(rel, isDir) {
		case Exclude:
			return false
		case Include:
			whitelisted = true
		}
	}
	if !whitelisted && !w.o.Hidden && name[0] == '.' {
		return false
	}
	return true
}
