package history

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"time"
)

const (
	maxEntries = 1000    // prompts kept in memory and after a compaction
	compactAt  = 2000    // lines past which the file is compacted
	maxLoad    = 4 << 20 // bytes read from the end of a larger file
)

// Entry is one prompt of the history.
type Entry struct {
	Time time.Time // when it was sent, to the second
	Cwd  string    // the folder gantry was working in
	Text string
}

// record is an Entry as one line of the file.
type record struct {
	T    int64  `json:"t"`
	Cwd  string `json:"cwd"`
	Text string `json:"text"`
}

// History is the prompt history of one file. Its methods are safe for concurrent use.
type History struct {
	path string
	now  func() time.Time

	mu      sync.Mutex
	entries []Entry // oldest first, at most maxEntries
	lines   int     // lines of the file as far as this value knows
	pos     int     // navigation: -1 while editing the draft, else the index from the newest
	draft   string  // what was typed before navigation started
}

// Open loads the history kept in the file at path. A missing file is an empty history
// (the file and its folder are created by the first Add, which reports a folder that
// cannot be written); corrupt lines are skipped. An empty path gives a history kept in
// memory only. The error, when the file exists but cannot be read, is one sentence
// naming the file.
func Open(path string) (*History, error) {
	h := &History{path: path, now: time.Now, pos: -1}
	if path == "" {
		return h, nil
	}
	entries, lines, err := load(path)
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) || errors.Is(err, syscall.ENOTDIR) {
			return h, nil // Add will say why it cannot write there
		}
		return nil, fmt.Errorf("cannot read the prompt history %s: %w", path, cause(err))
	}
	h.entries, h.lines = entries, lines
	return h, nil
}

// Add appends a prompt sent from the folder cwd to the history and to its file. Text
// that is empty or blank, or that repeats the newest entry exactly, is not added. The
// prompt is kept in memory even when the file cannot be written; the error then is one
// sentence naming the file and the reason. Add ends any navigation (see Reset).
func (h *History) Add(text, cwd string) error {
	if strings.TrimSpace(text) == "" {
		return nil
	}
	h.mu.Lock()
	defer h.mu.Unlock()
	h.pos, h.draft = -1, ""
	if n := len(h.entries); n > 0 && h.entries[n-1].Text == text {
		return nil
	}
	e := Entry{Time: time.Unix(h.now().Unix(), 0), Cwd: cwd, Text: text}
	h.entries = trim(append(h.entries, e))
	if h.path == "" {
		return nil
	}
	var line bytes.Buffer
	if err := encode(&line, e); err != nil {
		return err
	}
	if err := appendLine(h.path, line.Bytes()); err != nil {
		return fmt.Errorf("cannot save the prompt history in %s: %w", h.path, cause(err))
	}
	h.lines++
	if h.lines <= compactAt {
		return nil
	}
	entries, err := compact(h.path)
	if err != nil {
		return fmt.Errorf("cannot compact the prompt history %s: %w", h.path, cause(err))
	}
	h.entries, h.lines = entries, len(entries)
	return nil
}

// Entries returns the entries sent from the folder cwd, or all of them when cwd is "",
// newest first.
func (h *History) Entries(cwd string) []Entry {
	h.mu.Lock()
	defer h.mu.Unlock()
	if cwd != "" {
		cwd = filepath.Clean(cwd)
	}
	var out []Entry
	for i := len(h.entries) - 1; i >= 0; i-- {
		e := h.entries[i]
		if cwd == "" || (e.Cwd != "" && filepath.Clean(e.Cwd) == cwd) {
			out = append(out, e)
		}
	}
	return out
}

// trim keeps the newest maxEntries entries.
func trim(entries []Entry) []Entry {
	if n := len(entries); n > maxEntries {
		return append(entries[:0:0], entries[n-maxEntries:]...)
	}
	return entries
}

// encode writes e as one line of the file.
func encode(buf *bytes.Buffer, e Entry) error {
	enc := json.NewEncoder(buf)
	enc.SetEscapeHTML(false)
	return enc.Encode(record{T: e.Time.Unix(), Cwd: e.Cwd, Text: e.Text})
}

// cause drops the operation and path of a *fs.PathError, which the messages above
// already name, keeping the reason (and errors.Is on it).
func cause(err error) error {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return pe.Err
	}
	return err
}
