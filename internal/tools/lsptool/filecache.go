package lsptool

import (
	"bytes"
	"os"
	"strings"
	"sync"
	"time"
)

// files keeps the text of the files answers name, across calls, while they do not
// change (same size and modification time): a warm query then costs a stat per file,
// not a read and a split (see docs/benchmarks.md, "Through gantry").
var files = &fileCache{m: map[string]cachedFile{}}

const (
	maxCachedFiles = 512
	maxCachedBytes = 64 << 20
)

type cachedFile struct {
	size  int64
	mtime time.Time
	data  []byte
}

type fileCache struct {
	mu    sync.Mutex
	m     map[string]cachedFile
	bytes int
}

// text returns the contents of path, from the cache when the file is unchanged.
func (c *fileCache) text(path string) []byte {
	fi, err := os.Stat(path)
	if err != nil || !fi.Mode().IsRegular() {
		return nil
	}
	c.mu.Lock()
	e, ok := c.m[path]
	c.mu.Unlock()
	if ok && e.size == fi.Size() && e.mtime.Equal(fi.ModTime()) {
		return e.data
	}
	data, err := os.ReadFile(path)
	if err != nil {
		return nil
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if old, ok := c.m[path]; ok {
		c.bytes -= len(old.data)
	}
	if len(c.m) >= maxCachedFiles || c.bytes+len(data) > maxCachedBytes {
		c.m, c.bytes = map[string]cachedFile{}, 0 // start again rather than track ages
	}
	c.m[path] = cachedFile{size: fi.Size(), mtime: fi.ModTime(), data: data}
	c.bytes += len(data)
	return data
}

// lineOf returns line n (0-based) of data without splitting the rest, "\r" trimmed.
func lineOf(data []byte, n int) string {
	for i := 0; i < n; i++ {
		j := bytes.IndexByte(data, '\n')
		if j < 0 {
			return ""
		}
		data = data[j+1:]
	}
	if j := bytes.IndexByte(data, '\n'); j >= 0 {
		data = data[:j]
	}
	return strings.TrimSuffix(string(data), "\r")
}
