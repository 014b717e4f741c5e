package mcpclient

import (
	"strings"
	"sync"
	"unicode/utf8"
)

// stderrKeep is how many bytes of a stdio server's standard error are kept.
const stderrKeep = 4096

// tailBuffer keeps the last stderrKeep bytes written to it, so a server's last words
// can explain its failure without its output ever growing without bound or reaching
// gantry's own streams.
type tailBuffer struct {
	mu  sync.Mutex
	buf []byte
}

// Write keeps the tail of what it is given; it never fails.
func (t *tailBuffer) Write(p []byte) (int, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	n := len(p)
	if len(p) >= stderrKeep {
		p = p[len(p)-stderrKeep:]
		t.buf = append(t.buf[:0], p...)
		return n, nil
	}
	t.buf = append(t.buf, p...)
	if over := len(t.buf) - stderrKeep; over > 0 {
		t.buf = append(t.buf[:0], t.buf[over:]...)
	}
	return n, nil
}

// lastLine returns the last non-blank line kept, trimmed and cut to a sentence's
// length, or "".
func (t *tailBuffer) lastLine() string {
	if t == nil {
		return ""
	}
	t.mu.Lock()
	s := string(t.buf)
	t.mu.Unlock()
	s = strings.ToValidUTF8(s, "")
	lines := strings.Split(strings.TrimSpace(s), "\n")
	line := strings.TrimSpace(lines[len(lines)-1])
	if utf8.RuneCountInString(line) > 200 {
		line = string([]rune(line)[:200]) + "…"
	}
	return line
}
