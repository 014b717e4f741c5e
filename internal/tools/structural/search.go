// Package structural holds the structural tools: ast_grep (search by syntax tree),
// ast_edit (a rewrite staged, not written) and resolve (a staged rewrite accepted or
// discarded), on internal/astmatch's patterns and internal/syntax's grammars.
package structural

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"maps"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"sort"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/gantry-dev/gantry/internal/astmatch"
	"github.com/gantry-dev/gantry/internal/syntax"
	"github.com/gantry-dev/gantry/internal/tool"
	"github.com/gantry-dev/gantry/internal/walk"
)

// maxFileBytes bounds the files searched: a larger one is skipped and counted.
const maxFileBytes = 32 << 20

// query is one search: a pattern over a file or a folder.
type query struct {
	// digest turns a file's matches into what the tool needs of them, in the worker
	// that found them.
	digest  func(f *fileMatches, t *syntax.Tree, p *astmatch.Pattern, ms []astmatch.Match)
	env     tool.Env
	pattern string
	lang    *syntax.Language // nil: every language the pattern parses in
	root    string           // absolute
	shown   string           // as the model named it

	mu       sync.Mutex
	patterns map[*syntax.Language]*langPattern
}

// langPattern is the pattern compiled for one language, once.
type langPattern struct {
	once sync.Once
	p    *astmatch.Pattern
	err  error
}

func (q *query) compiled(ctx context.Context, l *syntax.Language) (*astmatch.Pattern, error) {
	q.mu.Lock()
	lp := q.patterns[l]
	if lp == nil {
		lp = &langPattern{}
		q.patterns[l] = lp
	}
	q.mu.Unlock()
	lp.once.Do(func() { lp.p, lp.err = astmatch.Compile(ctx, l, q.pattern) })
	return lp.p, lp.err
}

// fileMatches are the matches of one file, digested where they were found (the tree
// is not kept: a search of a large tree holds only what it will show).
type fileMatches struct {
	abs, shown string
	count      int      // matches
	entries    []string // ast_grep: each match as shown
	src        []byte   // ast_edit: the content the rewrite was computed from
	rewritten  string   // ast_edit: the content after it
	replaced   int      // ast_edit: the matches replaced (nested ones are left to the outer)
}

// outcome is what a search found and what it skipped.
type outcome struct {
	files                     []*fileMatches // with matches, sorted by path
	searched, withErrors      int
	binary, large, unreadable int
	langs                     map[string]bool
	refused                   map[string]error // languages whose grammar refused the pattern
	unparsed                  int              // files that could not be parsed (error)
	firstUnparsed             error
	// denied are the lines of the files left out, unread, because a rule denies
	// reading them ("[skipped secret/k.go: denied by …]").
	denied []string
}

// deniedNote is the lines of the files a rule kept the search from (tool.SkippedNote).
func (out *outcome) deniedNote() string { return tool.SkippedNote(out.denied) }

// skip records that a rule denies reading a file (err from the file guard).
func (out *outcome) skip(err error, mu *sync.Mutex) {
	line := "[skipped: " + err.Error() + "]"
	if d, ok := tool.AsFileDenied(err); ok {
		line = d.Skipped()
	}
	mu.Lock()
	out.denied = append(out.denied, line)
	mu.Unlock()
}

// newQuery checks the arguments of a search and says what is wrong in one sentence.
func newQuery(env tool.Env, name, pattern, path, language string) (*query, string) {
	if strings.TrimSpace(pattern) == "" {
		return nil, name + " needs a non-empty pattern."
	}
	if !syntax.Available {
		return nil, name + ": " + syntax.ErrUnavailable.Error() + "."
	}
	q := &query{env: env, pattern: pattern, root: env.Abs(path), shown: path, patterns: map[*syntax.Language]*langPattern{}}
	if q.shown == "" {
		q.shown = "."
	}
	if language != "" {
		if q.lang = syntax.Lookup(language); q.lang == nil {
			return nil, fmt.Sprintf("%s knows no language %q; it knows %s.", name, language, strings.Join(syntax.Names(), ", "))
		}
	}
	return q, ""
}

// run searches; a problem with the path or the pattern is one sentence.
func (q *query) run(ctx context.Context, name string) (*outcome, string) {
	fi, err := os.Stat(q.root)
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return nil, fmt.Sprintf("%s: %s does not exist.", name, q.shown)
		}
		return nil, fmt.Sprintf("%s cannot read %s: %v.", name, q.shown, err)
	}
	out := &outcome{langs: map[string]bool{}, refused: map[string]error{}}
	var mu sync.Mutex
	if !fi.IsDir() {
		l := q.lang
		if l == nil {
			if l = syntax.ForPath(q.root); l == nil {
				return nil, fmt.Sprintf("%s has no grammar for %s files; name the language in \"language\" (%s).", name, extOf(q.root), strings.Join(syntax.Names(), ", "))
			}
		}
		// The pattern is checked first: an unparseable one is an error, never "no match".
		if _, err := q.compiled(ctx, l); err != nil {
			return nil, fmt.Sprintf("%s: %v.", name, err)
		}
		if err := q.env.CanRead(q.root); err != nil {
			return nil, fmt.Sprintf("%s was refused and read nothing: %s.", name, err)
		}
		ps := newParsers()
		msg := q.searchFile(ctx, ps, q.root, q.displayPath(q.root), l, out, &mu, true)
		ps.close()
		if msg != "" {
			return nil, name + ": " + msg
		}
	} else {
		if q.lang != nil {
			if _, err := q.compiled(ctx, q.lang); err != nil {
				return nil, fmt.Sprintf("%s: %v.", name, err)
			}
		}
		rootSlash := strings.TrimSuffix(q.root, string(filepath.Separator)) + string(filepath.Separator)
		o := walk.Options{OnError: func(string, error) { mu.Lock(); out.unreadable++; mu.Unlock() }}
		// The files are listed first (the walk is fast beside the parses), then handed
		// to a pool of parsers largest first, so that no core idles at the end while
		// another parses one large file (the walker itself gives a worker a whole folder
		// at a time).
		type job struct {
			abs  string
			l    *syntax.Language
			size int64
		}
		var list []job
		err := walk.Walk(ctx, q.root, o, func(rel string, d fs.DirEntry) {
			l := syntax.ForPath(rel)
			if l == nil || (q.lang != nil && l != q.lang) {
				return
			}
			if err := q.env.CanRead(rootSlash + rel); err != nil { // before it is opened
				out.skip(err, &mu)
				return
			}
			var size int64
			if fi, err := d.Info(); err == nil {
				size = fi.Size()
			}
			mu.Lock()
			list = append(list, job{rootSlash + rel, l, size})
			mu.Unlock()
		})
		sort.Slice(list, func(i, j int) bool { return list[i].size > list[j].size })
		// Each worker takes the next file by an atomic counter (none waits to be handed
		// one), and keeps to one thread: the C library's allocator keeps an arena per
		// thread, and a worker that moved between threads grew one in each (measured:
		// peak RSS 150 → 121 MB on the TypeScript corpus of docs/benchmarks.md).
		var next atomic.Int64
		var wg sync.WaitGroup
		for range runtime.GOMAXPROCS(0) {
			wg.Add(1)
			go func() {
				defer wg.Done()
				runtime.LockOSThread()
				defer runtime.UnlockOSThread()
				ps := newParsers()
				defer ps.close()
				for ctx.Err() == nil {
					i := next.Add(1) - 1
					if i >= int64(len(list)) {
						return
					}
					j := list[i]
					q.searchFile(ctx, ps, j.abs, q.displayPath(j.abs), j.l, out, &mu, false)
				}
			}()
		}
		wg.Wait()
		if ctx.Err() != nil {
			return nil, name + " was cancelled before it finished."
		}
		if err != nil {
			return nil, fmt.Sprintf("%s cannot walk %s: %v.", name, q.shown, err)
		}
		if q.lang == nil && out.searched == 0 && len(out.refused) > 0 {
			// No language of the files here accepts the pattern.
			var why []string
			for _, l := range slices.Sorted(maps.Keys(out.refused)) {
				why = append(why, fmt.Sprintf("%s: %v", l, out.refused[l]))
			}
			return nil, fmt.Sprintf("%s: the pattern parses in none of the languages of the files under %s (%s).", name, q.shown, strings.Join(why, "; "))
		}
	}
	sort.Slice(out.files, func(i, j int) bool { return out.files[i].shown < out.files[j].shown })
	return out, ""
}

// searchFile matches the pattern in one file. For a file named alone (single), a
// binary or unreadable file is a sentence; walked, it is counted.
func (q *query) searchFile(ctx context.Context, ps *parsers, abs, shown string, l *syntax.Language, out *outcome, mu *sync.Mutex, single bool) string {
	p, err := q.compiled(ctx, l)
	if err != nil {
		mu.Lock()
		out.refused[l.Name] = err
		mu.Unlock()
		return ""
	}
	data, skip := readSource(abs, &ps.buf)
	if skip != "" {
		mu.Lock()
		switch skip {
		case "binary":
			out.binary++
		case "large":
			out.large++
		default:
			out.unreadable++
		}
		mu.Unlock()
		if single {
			switch skip {
			case "binary":
				return fmt.Sprintf("%s is a binary file (it holds a NUL byte); structural search reads source files.", shown)
			case "large":
				return fmt.Sprintf("%s is larger than %d MiB; structural search skips files that large.", shown, maxFileBytes>>20)
			}
			return fmt.Sprintf("%s cannot be read (%s).", shown, skip)
		}
		return ""
	}
	mu.Lock()
	out.searched++
	out.langs[l.Name] = true
	mu.Unlock()
	if !p.MayMatch(data) {
		return "" // a file without one of the pattern's words cannot match
	}
	parser, err := ps.get(l)
	var tree *syntax.Tree
	if err == nil {
		tree, err = p.Parse(ctx, parser, data)
	}
	if err != nil {
		mu.Lock()
		out.unparsed++
		if out.firstUnparsed == nil {
			out.firstUnparsed = fmt.Errorf("%s: %w", shown, err)
		}
		mu.Unlock()
		return ""
	}
	ms := p.FindAll(tree)
	var f *fileMatches
	if len(ms) > 0 {
		f = &fileMatches{abs: abs, shown: shown, count: len(ms)}
		q.digest(f, tree, p, ms)
	}
	mu.Lock()
	defer mu.Unlock()
	if tree.Errors {
		out.withErrors++
	}
	if f != nil {
		out.files = append(out.files, f)
	}
	return ""
}

// parsers are a worker's parsers, one per language, and its read buffer, reused from
// file to file (a digest copies what it keeps).
type parsers struct {
	m   map[*syntax.Language]*syntax.Parser
	buf []byte
}

func newParsers() *parsers { return &parsers{m: map[*syntax.Language]*syntax.Parser{}} }

func (ps *parsers) get(l *syntax.Language) (*syntax.Parser, error) {
	if p := ps.m[l]; p != nil {
		return p, nil
	}
	p, err := syntax.NewParser(l)
	if err != nil {
		return nil, err
	}
	ps.m[l] = p
	return p, nil
}

func (ps *parsers) close() {
	for _, p := range ps.m {
		p.Close()
	}
}

// readSource reads a file to search into *buf (grown as needed), or says why not:
// "binary" (a NUL byte in its first 8 KiB), "large", or the error.
func readSource(abs string, buf *[]byte) ([]byte, string) {
	f, err := os.Open(abs)
	if err != nil {
		return nil, err.Error()
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return nil, err.Error()
	}
	if fi.Size() > maxFileBytes {
		return nil, "large"
	}
	want := int(fi.Size()) + 512 // (a file that grows meanwhile is read to its end)
	if cap(*buf) < want {
		*buf = make([]byte, 0, want)
	}
	data := (*buf)[:0]
	for {
		if len(data) == cap(data) {
			data = append(data, 0)[:len(data)]
		}
		n, err := f.Read(data[len(data):cap(data)])
		data = data[:len(data)+n]
		if err == io.EOF {
			break
		}
		if err != nil {
			return nil, err.Error()
		}
		if len(data) > maxFileBytes {
			return nil, "large"
		}
	}
	*buf = data
	if bytes.IndexByte(data[:min(len(data), 8<<10)], 0) >= 0 {
		return nil, "binary"
	}
	return data, ""
}

func (q *query) displayPath(abs string) string {
	if r, err := filepath.Rel(q.env.Cwd, abs); err == nil && !strings.HasPrefix(r, "..") {
		return filepath.ToSlash(r)
	}
	return abs
}

func extOf(p string) string {
	if e := filepath.Ext(p); e != "" {
		return e
	}
	return filepath.Base(p)
}

// position is a byte offset's 1-based line and column (in characters) in src.
func position(src []byte, off uint32) (line, col int) {
	before := src[:off]
	line = bytes.Count(before, []byte{'\n'}) + 1
	start := bytes.LastIndexByte(before, '\n') + 1
	col = len([]rune(string(before[start:]))) + 1
	return line, col
}
