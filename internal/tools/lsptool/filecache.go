package lsptool

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"sync"
	"time"

	"github.com/gantry-dev/gantry/internal/dirwatch"
	"github.com/gantry-dev/gantry/internal/lsp"
	"github.com/gantry-dev/gantry/internal/resource"
	"go.lsp.dev/protocol"
)

// filesKey is the file cache's key in the pool: one per process.
func filesKey() resource.Key { return resource.Key{Scope: resource.Process, Kind: "lsp files"} }

// filesOf returns the process's file cache from the pool m was given, made by the
// first query that needs it and closed with the process's pool; its journal opens
// when it first reads a file. Without a pool (doctor's Manager) or once the pool is
// closed, it is a cache of this call alone, checked by stat.
func filesOf(ctx context.Context, m *lsp.Manager) *fileCache {
	if m == nil || m.Pool() == nil {
		return newFileCache(nil)
	}
	c, err := resource.Get(ctx, m.Pool(), filesKey(), func(context.Context) (*fileCache, error) {
		return &fileCache{opens: true, m: map[string]*fileText{}}, nil
	})
	if err != nil {
		return newFileCache(nil)
	}
	return c
}

const (
	maxCachedFiles = 512
	maxCachedBytes = 64 << 20
	racyWindow     = 2 * time.Second
)

// fileText is one file's content as read, and where its lines start.
type fileText struct {
	size     int64
	mtime    time.Time
	racy     bool // read within racyWindow of mtime
	watched  bool // its folder was watched before it was read
	anchored bool // so were the folders up to the workspace: trusted without a stat (queried)
	data     []byte
	starts   []int // offset of each line's first byte
}

// line is line n (0-based) without its end of line ("" past the end).
func (f *fileText) line(n int) string { return string(f.lineBytes(n)) }

// lineBytes is line as a slice of the file's data (not to be modified).
func (f *fileText) lineBytes(n int) []byte {
	if f == nil || n < 0 || n >= len(f.starts) {
		return nil
	}
	end := len(f.data)
	if n+1 < len(f.starts) {
		end = f.starts[n+1]
	}
	text := f.data[f.starts[n]:end]
	text = bytes.TrimSuffix(text, []byte{'\n'})
	return bytes.TrimSuffix(text, []byte{'\r'})
}

// lines is the file's count of lines (an empty file has none).
func (f *fileText) lines() int {
	if len(f.data) == 0 {
		return 0
	}
	return len(f.starts)
}

// locate finds symbol on line (1-based) of the file, as lsp.Locate.
func (f *fileText) locate(line int, symbol, shown string) (protocol.Position, string) {
	return lsp.LocateOnLine(f.line(line-1), f.lines(), line, symbol, shown)
}

func lineStarts(data []byte) []int {
	starts := make([]int, 1, bytes.Count(data, []byte{'\n'})+1)
	for i := 0; ; {
		j := bytes.IndexByte(data[i:], '\n')
		if j < 0 {
			return starts
		}
		i += j + 1
		if i < len(data) {
			starts = append(starts, i)
		} else {
			return starts
		}
	}
}

// fileCache keeps the text of the files answers name, across calls, while they do not
// change, with the offsets of their lines: a warm query costs one read of a change
// journal (dirwatch), not a read and a scan of each file, nor a stat of each (see
// docs/benchmarks.md, "Through gantry").
//
// A file whose folder the journal watches is trusted until the journal names it. Any
// other (no journal on this system, the watch refused) is checked with a stat: same
// size and modification time. A file's time has the granularity of the kernel's
// coarse clock (a few milliseconds), or of its file system (up to 2 s), so a file
// changed again within that tick of being read could keep its size and time: such an
// entry, read less than racyWindow after the file's last change, is not trusted (read
// again next time), as git does with its racily clean index entries.
//
// The cache is a resource of the process (filesOf): the files' text is the disk's,
// the same for every session, and each call checks its session's read rules before it
// reads a file, so a warm query of any session reuses what another read.
type fileCache struct {
	opens   bool // the cache opens its journal when it first reads a file
	mu      sync.Mutex
	journal *dirwatch.Journal // nil: none yet (opens) or none at all
	m       map[string]*fileText
	bytes   int
}

// newFileCache returns a cache that asks j (nil: checks each file by stat).
func newFileCache(j *dirwatch.Journal) *fileCache {
	return &fileCache{journal: j, m: map[string]*fileText{}}
}

// Close closes the cache's journal (a resource of the process's pool).
func (c *fileCache) Close(context.Context) error {
	c.mu.Lock()
	j := c.journal
	c.journal, c.opens = nil, false
	c.m, c.bytes = map[string]*fileText{}, 0
	c.mu.Unlock()
	return j.Close()
}

// watcher returns the journal, opening it first when open is set and the cache opens
// one (nil: none).
func (c *fileCache) watcher(open bool) *dirwatch.Journal {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.journal == nil && open && c.opens {
		c.journal, c.opens = dirwatch.New(), false
	}
	return c.journal
}

// refresh forgets the entries the journal says changed since the last refresh: one
// read of its queue when nothing did. A query refreshes before it reads its file and
// again once the answer came, so the lines it shows are as fresh as the answer.
func (c *fileCache) refresh() {
	ch := c.watcher(false).Drain() // nothing is watched before the journal opens
	if !ch.Any() {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if ch.All {
		c.m, c.bytes = map[string]*fileText{}, 0
		return
	}
	for p := range ch.Paths {
		c.drop(p)
	}
	if len(ch.Folders) > 0 {
		for p := range c.m {
			if ch.Changed(p) {
				c.drop(p)
			}
		}
	}
}

func (c *fileCache) drop(p string) {
	if e := c.m[p]; e != nil {
		c.bytes -= len(e.data)
		delete(c.m, p)
	}
}

// text returns path's content and lines, nil when it cannot be read: a watched entry
// is trusted without a stat (refresh first).
func (c *fileCache) text(path string) *fileText {
	c.mu.Lock()
	e := c.m[path]
	c.mu.Unlock()
	if e != nil && e.watched {
		return e
	}
	f, _ := c.get(path)
	return f
}

// get returns path's content and lines after a stat (the file queried: it must still
// exist under that name), reading it when it changed. Called after a refresh: a
// watched entry of the same size and time is then trusted even when racy.
func (c *fileCache) get(path string) (*fileText, error) {
	fi, err := os.Stat(path)
	if err != nil {
		return nil, err
	}
	if !fi.Mode().IsRegular() {
		return nil, fmt.Errorf("not a regular file")
	}
	c.mu.Lock()
	e := c.m[path]
	c.mu.Unlock()
	if e != nil && (e.watched || !e.racy) && e.size == fi.Size() && e.mtime.Equal(fi.ModTime()) {
		return e, nil
	}
	// Watched first: a change after the watch is named by the journal, and a change
	// between the stat and the read is too (then read again).
	watched := c.watcher(true).Watch(filepath.Dir(path))
	readAt := time.Now()
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	f := &fileText{size: fi.Size(), mtime: fi.ModTime(), racy: readAt.Sub(fi.ModTime()) < racyWindow,
		watched: watched, data: data, starts: lineStarts(data)}
	c.mu.Lock()
	defer c.mu.Unlock()
	c.drop(path)
	if len(c.m) >= maxCachedFiles || c.bytes+len(data) > maxCachedBytes {
		c.m, c.bytes = map[string]*fileText{}, 0 // start again rather than track ages
	}
	c.m[path] = f
	c.bytes += len(data)
	return f, nil
}
