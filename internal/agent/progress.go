package agent

import (
	"bytes"
	"sync"
	"time"

	"github.com/gantry-dev/gantry/internal/face"
)

// tailKeep is how much of a running call's output its ToolOutput events carry, and
// tailEvery how often they are sent at most.
const (
	tailKeep  = 8 << 10
	tailEvery = 100 * time.Millisecond
)

// tailer keeps the tail of what a running call prints and sends it as ToolOutput, at
// most every tailEvery (the last of a burst is sent when its interval ends).
type tailer struct {
	id   string
	emit func(face.Event)

	mu      sync.Mutex
	buf     []byte
	last    time.Time
	timer   *time.Timer
	stopped bool
}

func newTailer(id string, emit func(face.Event)) *tailer { return &tailer{id: id, emit: emit} }

func (t *tailer) write(p []byte) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.stopped {
		return
	}
	t.buf = append(t.buf, p...)
	if len(t.buf) > tailKeep {
		cut := t.buf[len(t.buf)-tailKeep:]
		if i := bytes.IndexByte(cut, '\n'); i >= 0 && i < len(cut)-1 {
			cut = cut[i+1:]
		}
		t.buf = append(t.buf[:0], cut...)
	}
	wait := tailEvery - time.Since(t.last)
	if wait <= 0 {
		t.sendLocked()
		return
	}
	if t.timer == nil {
		t.timer = time.AfterFunc(wait, func() {
			t.mu.Lock()
			defer t.mu.Unlock()
			t.timer = nil
			if !t.stopped {
				t.sendLocked()
			}
		})
	}
}

func (t *tailer) sendLocked() {
	t.last = time.Now()
	t.emit(face.ToolOutput{CallID: t.id, Tail: string(t.buf)})
}

// stop ends the events (the call's result follows).
func (t *tailer) stop() {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.stopped = true
	if t.timer != nil {
		t.timer.Stop()
		t.timer = nil
	}
}
