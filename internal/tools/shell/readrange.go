package shell

import (
	"io"
	"os"
)

// readRange reads path from offset off to its current end, keeping at most headMax
// bytes of the beginning and tailMax of the end of that range, and returns the text
// with the new offset. A file that shrank (truncated by the command) is read from 0.
func readRange(path string, off int64, headMax, tailMax int) (string, int64, error) {
	f, err := os.Open(path)
	if err != nil {
		return "", off, err
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return "", off, err
	}
	size := fi.Size()
	if size < off {
		off = 0
	}
	n := size - off
	if n <= int64(headMax+tailMax) {
		b := make([]byte, n)
		if _, err := f.ReadAt(b, off); err != nil && err != io.EOF {
			return "", off, err
		}
		return joinKept(b, nil, 0), size, nil
	}
	head := make([]byte, headMax)
	if _, err := f.ReadAt(head, off); err != nil && err != io.EOF {
		return "", off, err
	}
	tail := make([]byte, tailMax)
	if _, err := f.ReadAt(tail, size-int64(tailMax)); err != nil && err != io.EOF {
		return "", off, err
	}
	return joinKept(head, tail, n-int64(headMax+tailMax)), size, nil
}
