package kernel

import (
	"io"
	"strings"
	"time"
)

// The interpreter's own output, read from its standard output and error: to the
// running cell up to the sync mark, else to the kernel's log.

// syncMark is what a driver writes on its standard output and error after a cell:
// all that came before it is the cell's.
const syncMark = "\x1egantry-sync\x1e"

// raw reads the interpreter's own output: to the running cell, else to the log. A
// sync mark is taken out and counted in marks[stream].
func (k *Kernel) raw(name string, stream int, r io.Reader) {
	buf := make([]byte, 32<<10)
	var carry string // the end of the last read, when it may be the start of a mark
	for {
		n, err := r.Read(buf)
		if n > 0 {
			text := carry + string(buf[:n])
			carry = ""
			for {
				i := strings.Index(text, syncMark)
				if i < 0 {
					break
				}
				k.deliver(name, text[:i])
				text = text[i+len(syncMark):]
				k.mu.Lock()
				k.marks[stream]++
				k.mu.Unlock()
				select {
				case k.rawWake <- struct{}{}:
				default:
				}
				k.holdAtMark(stream)
			}
			for l := min(len(syncMark)-1, len(text)); l > 0; l-- {
				if strings.HasPrefix(syncMark, text[len(text)-l:]) {
					carry, text = text[len(text)-l:], text[:len(text)-l]
					break
				}
			}
			k.deliver(name, text)
		}
		if err != nil {
			k.deliver(name, carry)
			return
		}
	}
}

func (k *Kernel) deliver(name, text string) {
	if text == "" {
		return
	}
	k.mu.Lock()
	k.rawAt = time.Now()
	if k.sink != nil {
		k.sink.stream(name, text)
	} else if k.log.Len() < 16<<10 {
		k.log.WriteString(text)
	}
	k.mu.Unlock()
}

func (k *Kernel) lastWords() string {
	k.mu.Lock()
	defer k.mu.Unlock()
	if s := strings.TrimSpace(k.log.String()); s != "" {
		lines := strings.Split(s, "\n")
		if len(lines) > 6 {
			lines = lines[len(lines)-6:]
		}
		return ": " + strings.Join(lines, " | ")
	}
	return ""
}
