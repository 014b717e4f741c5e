package lsptool

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"sync"
	"time"

	"github.com/gantry-dev/gantry/internal/dirwatch"
	"github.com/gantry-dev/gantry/internal/lsp"
	"go.lsp.dev/protocol"
)

// files keeps the text of the files answers name, across calls, while they do not
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
var files = newFileCache(dirwatch.New())

const (
	maxCachedFiles = 512
	maxCachedBytes = 64 << 20
	racyWindow     = 2 * time.Second
)

// fileText is one file's content as read, and where its lines start.
type fileText struct {
	size    int64
	mtime   time.Time
	racy    bool // read within racyWindow of mtime
	watched bool // its folder was watched before it was read
	data    []byte
	starts  []int // offset of each line's first byte
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

type fileCache struct {
	journal *dirwatch.Journal
	mu      sync.Mutex
	m       map[string]*fileText
	bytes   int
}

func newFileCache(j *dirwatch.Journal) *fileCache {
	return &fileCache{journal: j, m: map[string]*fileText{}}
}

// refresh forgets the entries the journal says changed since the last refresh: one
// read of its queue when nothing did. A query refreshes before it reads its file and
// again once the answer came, so the lines it shows are as fresh as the answer.
func (c *fileCache) refresh() {
	ch := c.journal.Drain()
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
	watched := c.journal.Watch(filepath.Dir(path))
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
