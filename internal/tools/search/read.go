package search

import (
	"bytes"
	"syscall"
)

// chunkSize is the read buffer of a goroutine: files are searched a chunk at a time,
// so that memory stays flat whatever their size.
const chunkSize = 256 << 10

// keepAbove is the buffer size above which a grown buffer (a long line, or a whole file
// in content mode) is dropped after use rather than kept.
const keepAbove = 1 << 20

// scratch is one goroutine's reusable state.
type scratch struct {
	buf []byte
	sc  *lineScanner
}

// trim drops a buffer grown past keepAbove.
func (s *scratch) trim() {
	if cap(s.buf) > keepAbove {
		s.buf = make([]byte, 0, chunkSize)
	}
}

// readSome reads into buf, retrying on EINTR.
func readSome(fd int, buf []byte) (int, error) {
	for {
		n, err := syscall.Read(fd, buf)
		if err != syscall.EINTR {
			return n, err
		}
	}
}

// withFile calls fn with the whole content of the file at path, read into the scratch
// buffer (grown as needed). fn must not keep data. The file is read with plain system
// calls: os.File's poller registration costs a call per file.
func (s *scratch) withFile(path string, fn func(data []byte)) error {
	fd, err := openRead(path)
	if err != nil {
		return err
	}
	defer syscall.Close(fd)
	defer s.trim()
	n := 0
	buf := s.buf[:cap(s.buf)]
	for {
		if n == len(buf) {
			buf = append(buf, make([]byte, len(buf))...)
			buf = buf[:cap(buf)]
			s.buf = buf[:0]
		}
		m, err := readSome(fd, buf[n:])
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

// eachChunk reads the file at path a chunk at a time and calls fn with runs of whole
// lines (the last one without its line break only at the end of the file); fn returns
// false once it needs no more lines. The whole file is still read to tell whether it is
// binary (a NUL byte, as ripgrep tells the files it walks): binary reports that, and
// reading stops at the first NUL.
func (s *scratch) eachChunk(path string, fn func(lines []byte) bool) (binary bool, err error) {
	fd, err := openRead(path)
	if err != nil {
		return false, err
	}
	defer syscall.Close(fd)
	defer s.trim()
	buf := s.buf[:cap(s.buf)]
	carry := 0 // a partial line carried over at buf[:carry]
	want := true
	for {
		if carry == len(buf) { // a line longer than the buffer
			buf = append(buf, make([]byte, len(buf))...)
			buf = buf[:cap(buf)]
			s.buf = buf[:0]
		}
		n, err := readSome(fd, buf[carry:])
		if err != nil {
			return false, err
		}
		if n == 0 {
			if want && carry > 0 {
				fn(buf[:carry])
			}
			return false, nil
		}
		if bytes.IndexByte(buf[carry:carry+n], 0) >= 0 {
			return true, nil
		}
		end := carry + n
		if !want {
			carry = 0
			continue
		}
		last := bytes.LastIndexByte(buf[carry:end], '\n')
		if last < 0 {
			carry = end
			continue
		}
		last += carry + 1
		want = fn(buf[:last])
		carry = copy(buf, buf[last:end])
	}
}

func openRead(path string) (int, error) {
	for {
		fd, err := syscall.Open(path, syscall.O_RDONLY|syscall.O_CLOEXEC, 0)
		if err != syscall.EINTR {
			return fd, err
		}
	}
}
