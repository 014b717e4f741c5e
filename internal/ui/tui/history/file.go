package history

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"
)

// load reads the newest entries of the file at path and counts its lines (more than
// compactAt when the file is too large to be read whole, so that the next Add compacts).
func load(path string) ([]Entry, int, error) {
	f, err := openLocked(path, os.O_RDONLY, lockShared)
	if err != nil {
		return nil, 0, err
	}
	defer f.Close()
	data, whole, err := readTail(f)
	if err != nil {
		return nil, 0, err
	}
	entries, lines := parse(data)
	if !whole {
		lines = max(lines, compactAt+1)
	}
	return entries, lines, nil
}

// readTail reads f, or its last maxLoad bytes from the start of a line when it is
// larger; whole says whether it was read entirely.
func readTail(f *os.File) (data []byte, whole bool, err error) {
	fi, err := f.Stat()
	if err != nil {
		return nil, false, err
	}
	if fi.Size() <= maxLoad {
		data, err = io.ReadAll(f)
		return data, true, err
	}
	// Read one byte more, before the window, to know whether it starts a line.
	buf := make([]byte, maxLoad+1)
	n, err := f.ReadAt(buf, fi.Size()-int64(len(buf)))
	if err != nil && !errors.Is(err, io.EOF) {
		return nil, false, err
	}
	buf = buf[:n]
	i := bytes.IndexByte(buf, '\n')
	if i < 0 {
		return nil, false, nil
	}
	return buf[i+1:], false, nil
}

// parse decodes the lines of data, skipping blank and corrupt ones and those repeating
// the entry before them, and returns the newest maxEntries entries, oldest first, with
// the number of non-blank lines. Only the lines needed are decoded, from the end.
func parse(data []byte) ([]Entry, int) {
	var entries []Entry
	lines := 0
	for len(data) > 0 {
		var line []byte
		if i := bytes.LastIndexByte(data[:len(data)-1], '\n'); i >= 0 {
			line, data = data[i+1:], data[:i+1]
		} else {
			line, data = data, nil
		}
		line = bytes.TrimSpace(line)
		if len(line) == 0 {
			continue
		}
		lines++
		if len(entries) == maxEntries {
			continue // counting only
		}
		var r record
		if json.Unmarshal(line, &r) != nil || strings.TrimSpace(r.Text) == "" {
			continue
		}
		if n := len(entries); n > 0 && entries[n-1].Text == r.Text {
			// The newer of two equal neighbours is dropped, as Add would have.
			entries[n-1] = Entry{Time: unix(r.T), Cwd: r.Cwd, Text: r.Text}
			continue
		}
		entries = append(entries, Entry{Time: unix(r.T), Cwd: r.Cwd, Text: r.Text})
	}
	slices.Reverse(entries)
	return entries, lines
}

// appendLine appends line to the file at path with a single write, creating the file
// and its folder when needed, and starting a new line when the last one was cut short.
func appendLine(path string, line []byte) error {
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return err
	}
	// Exclusive, so that the end of the file is not another write in progress.
	f, err := openLocked(path, os.O_RDWR|os.O_APPEND|os.O_CREATE, lockExclusive)
	if err != nil {
		return err
	}
	if !endsLine(f) {
		// A line cut short (a crash, a full disk) must not swallow this one.
		line = append([]byte{'\n'}, line...)
	}
	_, err = f.Write(line)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	return err
}

// endsLine reports whether f is empty or ends with a newline.
func endsLine(f *os.File) bool {
	fi, err := f.Stat()
	if err != nil || fi.Size() == 0 {
		return true
	}
	var last [1]byte
	_, err = f.ReadAt(last[:], fi.Size()-1)
	return err != nil || last[0] == '\n'
}

// compact rewrites the file at path with its newest maxEntries entries, through a
// temporary file renamed over it, and returns them.
func compact(path string) ([]Entry, error) {
	f, err := openLocked(path, os.O_RDONLY, lockExclusive)
	if err != nil {
		return nil, err
	}
	defer f.Close() // after the rename: appenders waiting for the lock then reopen
	data, _, err := readTail(f)
	if err != nil {
		return nil, err
	}
	entries, _ := parse(data)
	var buf bytes.Buffer
	for _, e := range entries {
		if err := encode(&buf, e); err != nil {
			return nil, err
		}
	}
	tmp, err := os.CreateTemp(filepath.Dir(path), ".history-*.tmp")
	if err != nil {
		return nil, err
	}
	_, err = tmp.Write(buf.Bytes())
	if cerr := tmp.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(tmp.Name(), path)
	}
	if err != nil {
		os.Remove(tmp.Name())
		return nil, err
	}
	return entries, nil
}

func unix(t int64) time.Time { return time.Unix(t, 0) }
