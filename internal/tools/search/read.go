package search

import (
	"bytes"
	"io"
	"syscall"
	"unicode/utf8"
)

// chunkSize is the read buffer of a goroutine: files are read a chunk at a time, so that
// memory stays flat whatever their size. A variable so that tests can make it tiny.
var chunkSize = 256 << 10

// maxLineBuf bounds how far a buffer grows to hold a line longer than a chunk, so that
// the regex runs on it in memory; a longer line is read through instead (see longLine).
// A variable so that tests can make it tiny.
var maxLineBuf = 4 << 20

// bigBuffers is how many goroutines of the process may hold a grown buffer at once;
// the others read long lines through. With maxLineBuf, it bounds the memory long lines
// take whatever the number of CPUs or of concurrent grep calls.
var bigBuffers = make(chan struct{}, 2)

// auxSize is the buffer a long line is read back through (for the regex, or the part
// shown).
const auxSize = 64 << 10

// scratch is one goroutine's reusable state.
type scratch struct {
	buf  []byte
	big  bool   // buf has grown past chunkSize and holds a bigBuffers token
	aux  []byte // made on the first long line
	sc   *lineScanner
	cnt  counter
	rend renderer
	hint bool // the matcher has a literal or window every match holds
	ov   int  // the bytes kept between segments of a long line for the hint
}

func newScratch(m *matcher) *scratch {
	s := &scratch{sc: newLineScanner(m)}
	s.hint = m.win != nil || len(m.lits) > 0
	if m.win != nil {
		s.ov = len(m.win.sets) - 1
	}
	for _, l := range m.lits {
		s.ov = max(s.ov, len(l.s)-1)
	}
	s.ov = max(s.ov, len(m.prefix)-1)
	s.buf = make([]byte, 0, s.size())
	return s
}

// size is the buffer's size: a chunk, or more for a pattern whose literal is not much
// shorter.
func (s *scratch) size() int { return max(chunkSize, 4*(s.ov+1)) }

// grow doubles the buffer, which holds a line longer than it, if it may.
func (s *scratch) grow() bool {
	if 2*cap(s.buf) > maxLineBuf {
		return false
	}
	if !s.big {
		select {
		case bigBuffers <- struct{}{}:
			s.big = true
		default:
			return false
		}
	}
	nb := make([]byte, 2*cap(s.buf))
	copy(nb, s.buf[:cap(s.buf)])
	s.buf = nb[:0]
	return true
}

// trim drops a grown buffer and gives its token back.
func (s *scratch) trim() {
	if s.big {
		s.buf = make([]byte, 0, s.size())
		s.big = false
		<-bigBuffers
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

// preadSome reads into buf from offset off, retrying on EINTR.
func preadSome(fd int, buf []byte, off int64) (int, error) {
	for {
		n, err := syscall.Pread(fd, buf, off)
		if err != syscall.EINTR {
			return n, err
		}
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

// visitor hears what a scan reads; each method returns false once it needs no more lines.
type visitor interface {
	// lines is a run of whole lines, at file offset off (the last one without its line
	// break only at the end of the file). It must not keep data.
	lines(data []byte, off int64) bool
	// long is a line longer than the buffer, read through.
	long(l *longLine) bool
}

// scan reads the file at path a chunk at a time and gives v its lines. A NUL byte makes
// the file binary, as ripgrep tells the files it walks: nul is the offset of the first
// one, or -1. With stopAtNUL the scan stops there; else it goes on as if it were text.
// Once v needs no more lines, the rest is read only to look for a NUL byte (with
// stopAtNUL) or not at all. The file is read with plain system calls: os.File's poller
// registration costs a call per file.
func (s *scratch) scan(path string, v visitor, stopAtNUL bool) (nul int64, err error) {
	fd, err := openRead(path)
	if err != nil {
		return -1, err
	}
	defer syscall.Close(fd)
	defer s.trim()
	nul = -1
	buf := s.buf[:cap(s.buf)]
	carry := 0    // a partial line carried over at buf[:carry]
	seen := 0     // the bytes of buf known to hold no line break
	var off int64 // the file offset of buf[0]
	want := true
	for {
		if carry == len(buf) { // a line longer than the buffer
			if s.grow() {
				buf = s.buf[:cap(s.buf)]
				continue
			}
			l := longLine{s: s, fd: fd, off: off, pfx: -1}
			var stop bool
			carry, stop, err = l.read(buf, &nul, stopAtNUL)
			if err != nil || stop {
				return nul, err
			}
			off = l.off + l.n + 1
			seen = 0 // what follows the line may hold whole lines
			want = v.long(&l)
			if !want {
				off += int64(carry)
				carry, seen = 0, 0
			}
			continue
		}
		n, err := readSome(fd, buf[carry:])
		if err != nil {
			return nul, err
		}
		if n == 0 {
			if want && carry > 0 {
				v.lines(buf[:carry], off)
			}
			return nul, nil
		}
		if nul < 0 {
			if i := bytes.IndexByte(buf[carry:carry+n], 0); i >= 0 {
				nul = off + int64(carry+i)
				if stopAtNUL {
					return nul, nil
				}
			}
		}
		end := carry + n
		if !want {
			if !stopAtNUL || nul >= 0 {
				return nul, nil
			}
			off += int64(end)
			carry, seen = 0, 0
			continue
		}
		last := bytes.LastIndexByte(buf[seen:end], '\n')
		if last < 0 {
			carry, seen = end, end
			continue
		}
		last += seen + 1
		want = v.lines(buf[:last], off)
		carry = copy(buf, buf[last:end])
		seen = carry
		off += int64(last)
	}
}

// longLine is a line longer than the buffer. It is read through once, a segment at a
// time, to find its end, a NUL byte, and the first occurrence of the matcher's literal or
// window (segments overlap by the length of that, less one); the regex then runs on it,
// when it must, over an io.RuneReader that reads it back from the file (regexp's
// MatchReader and FindReaderIndex need no more memory than the pattern's), and the part
// shown is read back alone. Memory stays that of the buffer whatever the line's length.
type longLine struct {
	s   *scratch
	fd  int
	off int64 // the file offset of its first byte
	n   int64 // its length without the line break
	cr  bool  // it ends with \r
	hit bool  // the literal or window every match holds occurs in it
	at  int64 // where it occurs first
	pfx int64 // where the matcher's prefix occurs first, -1 for nowhere (or no prefix)
}

// read reads the line through; buf is full with its start. It returns the bytes after
// the line break, left at buf[:carry]; stop says a NUL byte ended the scan.
func (l *longLine) read(buf []byte, nul *int64, stopAtNUL bool) (carry int, stop bool, err error) {
	ov := l.s.ov  // less than a quarter of buf
	var seg int64 // the line offset of buf[0]
	n := len(buf)
	for {
		// buf[:n] holds the line's bytes from seg on
		l.look(buf[:n], seg)
		last := buf[n-1]
		keep := min(ov, n)
		copy(buf, buf[n-keep:n])
		seg += int64(n - keep)
		m, err := readSome(l.fd, buf[keep:])
		if err != nil {
			return 0, true, err
		}
		if m == 0 { // the line ends the file
			l.n, l.cr = seg+int64(keep), last == '\r'
			return 0, false, nil
		}
		got := buf[keep : keep+m]
		if *nul < 0 {
			if i := bytes.IndexByte(got, 0); i >= 0 {
				*nul = l.off + seg + int64(keep+i)
				if stopAtNUL {
					return 0, true, nil
				}
			}
		}
		if i := bytes.IndexByte(got, '\n'); i >= 0 {
			end := keep + i
			l.look(buf[:end], seg)
			if end > 0 {
				last = buf[end-1]
			}
			l.n, l.cr = seg+int64(end), last == '\r'
			return copy(buf, buf[end+1:keep+m]), false, nil
		}
		n = keep + m
	}
}

// look looks for the literal or window, and the prefix, in seg, the line's bytes from
// offset at.
func (l *longLine) look(seg []byte, at int64) {
	sc := l.s.sc
	if p := sc.m.prefix; p != nil && l.pfx < 0 {
		if i := bytes.Index(seg, p); i >= 0 {
			l.pfx = at + int64(i)
		}
	}
	if l.hit || !l.s.hint {
		return
	}
	var i int
	if w := sc.m.win; w != nil {
		i = w.index(seg, 0)
	} else {
		sc.finder.reset(seg)
		i = sc.finder.index(0)
	}
	if i >= 0 {
		l.hit, l.at = true, at+int64(i)
	}
}

// pureLen is the length of every match when the literal or window is the whole
// pattern, else 0.
func (m *matcher) pureLen() int {
	switch {
	case m.win != nil && m.win.pure:
		return len(m.win.sets)
	case m.win == nil && m.pure:
		return len(m.lits[0].s)
	}
	return 0
}

// matches reports whether the line matches.
func (l *longLine) matches() bool {
	m := l.s.sc.m
	switch {
	case m.pureLen() > 0 || l.s.hint && !l.hit:
		return l.hit
	case m.prefix != nil && l.pfx < 0:
		return false
	}
	return m.re.MatchReader(l.reader(l.start(), l.n))
}

// start is where the regex starts reading: no match starts before the first prefix.
func (l *longLine) start() int64 { return max(l.pfx, 0) }

// find returns the first match in the line's first n bytes, as FindIndex would on them,
// or nil.
func (l *longLine) find(n int64) []int64 {
	m := l.s.sc.m
	if p := int64(m.pureLen()); p > 0 || l.s.hint && !l.hit {
		// the first occurrence in the whole line; none in the first n bytes if it does
		// not fit
		if !l.hit || l.at+p > n {
			return nil
		}
		return []int64{l.at, l.at + p}
	}
	if m.prefix != nil && l.pfx < 0 {
		return nil
	}
	from := l.start()
	if from > n {
		return nil
	}
	loc := m.re.FindReaderIndex(l.reader(from, n))
	if loc == nil {
		return nil
	}
	return []int64{from + int64(loc[0]), from + int64(loc[1])}
}

// text returns the line's bytes [from, to), read back into the aux buffer (to-from is
// at most its size).
func (l *longLine) text(from, to int64) []byte {
	b := l.s.auxBuf()[:to-from]
	n := 0
	for n < len(b) {
		m, err := preadSome(l.fd, b[n:], l.off+from+int64(n))
		if err != nil || m == 0 {
			break
		}
		n += m
	}
	return b[:n]
}

func (s *scratch) auxBuf() []byte {
	if s.aux == nil {
		s.aux = make([]byte, auxSize)
	}
	return s.aux
}

// reader returns a reader of the line's bytes [from, to).
func (l *longLine) reader(from, to int64) *lineReader {
	return &lineReader{fd: l.fd, pos: l.off + from, end: l.off + to, b: l.s.auxBuf()[:0]}
}

// lineReader is an io.RuneReader of a part of a file, read back through a buffer. A
// read error ends it, as the end would; the regexp package treats both alike.
type lineReader struct {
	fd       int
	pos, end int64 // the file offsets still to read
	b        []byte
	i        int
}

func (r *lineReader) ReadRune() (rune, int, error) {
	if r.i+utf8.UTFMax > len(r.b) && r.pos < r.end {
		r.fill()
	}
	if r.i >= len(r.b) {
		return 0, 0, io.EOF
	}
	if c := r.b[r.i]; c < utf8.RuneSelf {
		r.i++
		return rune(c), 1, nil
	}
	c, w := utf8.DecodeRune(r.b[r.i:])
	r.i += w
	return c, w, nil
}

func (r *lineReader) fill() {
	n := copy(r.b[:cap(r.b)], r.b[r.i:])
	r.b, r.i = r.b[:n], 0
	want := min(int64(cap(r.b)-n), r.end-r.pos)
	m, err := preadSome(r.fd, r.b[n:n+int(want)], r.pos)
	if err != nil || m <= 0 {
		r.pos = r.end
		return
	}
	r.b = r.b[:n+m]
	r.pos += int64(m)
}
