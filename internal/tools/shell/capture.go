package shell

import (
	"fmt"
	"strings"
)

// Memory bounds of a command's captured output. The caller truncates the result further
// to maxOutput characters; these only keep a runaway command (`yes`) from eating memory.
const (
	captureHead = 1 << 20
	captureTail = 1 << 20
)

// capture is an io.Writer that keeps the first headMax and the last tailMax bytes
// written to it and counts those in between. It is not safe for concurrent use.
type capture struct {
	headMax, tailMax int
	head, tail       []byte
	total            int64
}

func newCapture(headMax, tailMax int) *capture {
	return &capture{headMax: headMax, tailMax: tailMax}
}

func (c *capture) Write(p []byte) (int, error) {
	n := len(p)
	c.total += int64(n)
	if room := c.headMax - len(c.head); room > 0 {
		k := min(room, len(p))
		c.head = append(c.head, p[:k]...)
		p = p[k:]
	}
	if len(p) >= c.tailMax {
		c.tail = append(c.tail[:0], p[len(p)-c.tailMax:]...)
		return n, nil
	}
	c.tail = append(c.tail, p...)
	if len(c.tail) > 2*c.tailMax { // compact now and then, not on every write
		c.tail = append(c.tail[:0], c.tail[len(c.tail)-c.tailMax:]...)
	}
	return n, nil
}

// String returns the kept output, with one line saying how much was dropped between
// the head and the tail, if anything was.
func (c *capture) String() string {
	tail := c.tail
	if len(tail) > c.tailMax {
		tail = tail[len(tail)-c.tailMax:]
	}
	dropped := c.total - int64(len(c.head)) - int64(len(tail))
	return joinKept(c.head, tail, dropped)
}

// joinKept joins a head and a tail of some output between which dropped bytes were
// left out, and makes the text valid UTF-8 (a cut may split a character).
func joinKept(head, tail []byte, dropped int64) string {
	var b strings.Builder
	b.Write(head)
	if dropped > 0 {
		if len(head) > 0 && head[len(head)-1] != '\n' {
			b.WriteByte('\n')
		}
		fmt.Fprintf(&b, "[… %d bytes of output dropped here …]\n", dropped)
	}
	b.Write(tail)
	return strings.ToValidUTF8(b.String(), "\uFFFD")
}
