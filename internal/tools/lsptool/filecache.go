package lsptool

import (
	"bytes"
	"fmt"
	"os"
	"sync"
	"time"

	"github.com/gantry-dev/gantry/internal/lsp"
	"go.lsp.dev/protocol"
)

// files keeps the text of the files answers name, across calls, while they do not
// change (same size and modification time), with the offsets of their lines: a warm
// query then costs a stat per file, not a read and a scan (see docs/benchmarks.md,
// "Through gantry").
//
// A file's time has the granularity of the kernel's coarse clock (a few
// milliseconds), or of its file system (up to 2 s), so a file changed again within
// that tick of being read could keep its size and time: an entry read less than
// racyWindow after the file's last change is not trusted (read again next time), as
// git does with its racily clean index entries.
var files = &fileCache{m: map[string]*fileText{}}

const (
	maxCachedFiles = 512
	maxCachedBytes = 64 << 20
	racyWindow     = 2 * time.Second
)

// fileText is one file's content as read, and where its lines start.
type fileText struct {
	size   int64
	mtime  time.Time
	racy   bool // read within racyWindow of mtime
	data   []byte
	starts []int // offset of each line's first byte
}

// line is line n (0-based) without its end of line ("" past the end).
func (f *fileText) line(n int) string {
	if f == nil || n < 0 || n >= len(f.starts) {
		return ""
	}
	end := len(f.data)
	if n+1 < len(f.starts) {
		end = f.starts[n+1]
	}
	text := f.data[f.starts[n]:end]
	text = bytes.TrimSuffix(text, []byte{'\n'})
	return string(bytes.TrimSuffix(text, []byte{'\r'}))
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
	mu    sync.Mutex
	m     map[string]*fileText
	bytes int
	last  []string // the files the last answer named
}

// maxPrefetch bounds the files checked ahead of an answer.
const maxPrefetch = 64

// prefetch checks, in the background, the files the last answer named (a stat each,
// a read when one changed): while the server works on a request, the files its
// answer most likely names are checked, so that the answer costs no stat of them
// after it arrives. The returned function waits for the checks and gives the files
// found; a file checked so, after the request was sent, is as fresh as the answer.
func (c *fileCache) prefetch() func() map[string]*fileText {
	c.mu.Lock()
	paths := c.last
	c.mu.Unlock()
	if len(paths) == 0 {
		return func() map[string]*fileText { return nil }
	}
	done := make(chan map[string]*fileText, 1)
	go func() {
		out := make(map[string]*fileText, len(paths))
		for _, p := range paths {
			if f, err := c.get(p); err == nil {
				out[p] = f
			}
		}
		done <- out
	}()
	return func() map[string]*fileText { return <-done }
}

// named records the files an answer named, for the next prefetch.
func (c *fileCache) named(paths []string) {
	if len(paths) > maxPrefetch {
		paths = paths[:maxPrefetch]
	}
	c.mu.Lock()
	c.last = paths
	c.mu.Unlock()
}

// text returns path's content and lines, nil when it cannot be read.
func (c *fileCache) text(path string) *fileText {
	f, _ := c.get(path)
	return f
}

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
	if e != nil && !e.racy && e.size == fi.Size() && e.mtime.Equal(fi.ModTime()) {
		return e, nil
	}
	readAt := time.Now()
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	f := &fileText{size: fi.Size(), mtime: fi.ModTime(), racy: readAt.Sub(fi.ModTime()) < racyWindow,
		data: data, starts: lineStarts(data)}
	c.mu.Lock()
	defer c.mu.Unlock()
	if old := c.m[path]; old != nil {
		c.bytes -= len(old.data)
	}
	if len(c.m) >= maxCachedFiles || c.bytes+len(data) > maxCachedBytes {
		c.m, c.bytes = map[string]*fileText{}, 0 // start again rather than track ages
	}
	c.m[path] = f
	c.bytes += len(data)
	return f, nil
}
