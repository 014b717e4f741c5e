package search

import (
	"fmt"
	"runtime/debug"
	"syscall"
)

// mmapAbove is the size from which a file is memory-mapped instead of read.
const mmapAbove = 8 << 20

// scratchSize is the initial read buffer of a goroutine.
const scratchSize = 256 << 10

// scratch is one goroutine's reusable state.
type scratch struct {
	buf []byte
	sc  *lineScanner
}

// withFile calls fn with the whole content of the file at path: read into the scratch
// buffer when small, memory-mapped when large. fn must not keep data. The file is
// read with plain system calls: os.File's poller registration costs a call per file.
func (s *scratch) withFile(path string, fn func(data []byte)) error {
	fd, err := openRead(path)
	if err != nil {
		return err
	}
	defer syscall.Close(fd)
	n := 0
	buf := s.buf[:cap(s.buf)]
	for {
		if n == len(buf) {
			if n >= mmapAbove {
				return s.mapFile(path, fd, fn)
			}
			buf = append(buf, make([]byte, len(buf))...)
			s.buf = buf[:0]
		}
		m, err := syscall.Read(fd, buf[n:])
		if err == syscall.EINTR {
			continue
		}
		if err != nil {
			return err
		}
		if m == 0 {
			break
		}
		n += m
	}
	fn(buf[:n])
	return nil
}

func openRead(path string) (int, error) {
	for {
		fd, err := syscall.Open(path, syscall.O_RDONLY|syscall.O_CLOEXEC, 0)
		if err != syscall.EINTR {
			return fd, err
		}
	}
}

// mapFile maps a large file, turning the fault a file truncated meanwhile causes into
// an error.
func (s *scratch) mapFile(path string, fd int, fn func([]byte)) (err error) {
	var st syscall.Stat_t
	if err := syscall.Fstat(fd, &st); err != nil {
		return err
	}
	if int64(int(st.Size)) != st.Size {
		return fmt.Errorf("%s is too large", path)
	}
	data, err := syscall.Mmap(fd, 0, int(st.Size), syscall.PROT_READ, syscall.MAP_SHARED)
	if err != nil {
		return err
	}
	defer syscall.Munmap(data)
	defer debug.SetPanicOnFault(debug.SetPanicOnFault(true))
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("%s changed while it was searched (%v)", path, r)
		}
	}()
	fn(data)
	return nil
}
