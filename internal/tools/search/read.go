package search

import (
	"fmt"
	"io"
	"os"
	"runtime/debug"
	"syscall"
)

// mmapAbove is the size from which a file is memory-mapped instead of read.
const mmapAbove = 8 << 20

// scratch is one goroutine's reusable state.
type scratch struct {
	buf []byte
	sc  *lineScanner
}

// withFile calls fn with the whole content of the file at path: read into the scratch
// buffer when small, memory-mapped when large. fn must not keep data.
func (s *scratch) withFile(path string, fn func(data []byte)) error {
	f, err := os.Open(path)
	if err != nil {
		return err
	}
	defer f.Close()
	n, err := io.ReadFull(f, s.buf[:cap(s.buf)])
	switch err {
	case io.EOF, io.ErrUnexpectedEOF:
		fn(s.buf[:n])
		return nil
	case nil:
	default:
		return err
	}
	// The buffer is full: the file is larger.
	fi, err := f.Stat()
	if err != nil {
		return err
	}
	if size := fi.Size(); size >= mmapAbove && int64(int(size)) == size {
		if data, err := syscall.Mmap(int(f.Fd()), 0, int(size), syscall.PROT_READ, syscall.MAP_SHARED); err == nil {
			defer syscall.Munmap(data)
			return mapped(path, data, fn)
		}
	}
	rest, err := io.ReadAll(f)
	if err != nil {
		return err
	}
	data := append(s.buf[:n:n], rest...)
	if cap(data) <= mmapAbove {
		s.buf = data[:0]
	}
	fn(data)
	return nil
}

// mapped calls fn on a memory-mapped file, turning the fault a file truncated meanwhile
// causes into an error.
func mapped(path string, data []byte, fn func([]byte)) (err error) {
	defer debug.SetPanicOnFault(debug.SetPanicOnFault(true))
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("%s changed while it was searched (%v)", path, r)
		}
	}()
	fn(data)
	return nil
}
