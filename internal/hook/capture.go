package hook

import "strings"

// maxCapture bounds what is kept of a hook's stdout and of its stderr.
const maxCapture = 64 << 10

// capture is an io.Writer that keeps the first max bytes written to it and counts the
// rest. It is not safe for concurrent use.
type capture struct {
	max     int
	buf     []byte
	dropped int64
}

func (c *capture) Write(p []byte) (int, error) {
	n := len(p)
	if room := c.max - len(c.buf); room > 0 {
		k := min(room, len(p))
		c.buf = append(c.buf, p[:k]...)
		p = p[k:]
	}
	c.dropped += int64(len(p))
	return n, nil
}

// String returns the kept bytes as valid UTF-8 (the cut may split a character).
func (c *capture) String() string { return strings.ToValidUTF8(string(c.buf), "\uFFFD") }

// Truncated tells whether bytes were dropped.
func (c *capture) Truncated() bool { return c.dropped > 0 }
