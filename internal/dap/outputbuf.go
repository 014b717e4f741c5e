package dap

import (
	"fmt"
	"strings"
	"sync"
)

// The bounded buffers a session keeps of the debuggee's output and the adapter's log.

// outputBuf keeps output between two reads: all of it up to max (0: maxOutput),
// then the head and the tail of it, counting what was cut.
type outputBuf struct {
	max        int
	head, tail strings.Builder
	cut        int
}

func (o *outputBuf) add(s string) {
	limit := o.max
	if limit <= 0 {
		limit = maxOutput
	}
	if o.head.Len() < limit/4 {
		n := min(len(s), limit/4-o.head.Len())
		o.head.WriteString(s[:n])
		s = s[n:]
	}
	if s == "" {
		return
	}
	o.tail.WriteString(s)
	if o.tail.Len() > limit {
		t := o.tail.String()
		keep := t[len(t)-limit*3/4:]
		o.cut += len(t) - len(keep)
		o.tail.Reset()
		o.tail.WriteString(keep)
	}
}

func (o *outputBuf) take() (string, int) {
	text, cut := o.head.String(), o.cut
	if cut > 0 {
		text += fmt.Sprintf("\n[… %d bytes of output cut …]\n", cut)
	}
	text += o.tail.String()
	*o = outputBuf{max: o.max}
	return text, cut
}

// tail keeps the last maxLog bytes written to it.
type tail struct {
	mu  sync.Mutex
	buf []byte
}

func (t *tail) Write(b []byte) (int, error) {
	t.mu.Lock()
	t.buf = append(t.buf, b...)
	if len(t.buf) > maxLog {
		t.buf = append(t.buf[:0], t.buf[len(t.buf)-maxLog:]...)
	}
	t.mu.Unlock()
	return len(b), nil
}

func (t *tail) String() string {
	t.mu.Lock()
	defer t.mu.Unlock()
	return string(t.buf)
}

// oneLine is s on one line, at most n bytes.
func oneLine(s string, n int) string {
	s = strings.Join(strings.Fields(s), " ")
	if len(s) > n {
		s = s[:n] + "…"
	}
	return s
}
