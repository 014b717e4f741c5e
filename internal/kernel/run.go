package kernel

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"
)

// Running one cell: the request to the driver, the relay of the tool calls it makes,
// and the wait for the sync marks that end its output.

// Relay runs a tool for a cell and returns its text, or its refusal or failure.
type Relay func(ctx context.Context, name string, args json.RawMessage) (text string, failed bool)

// RunOptions say how a cell runs.
type RunOptions struct {
	// Idle is the cell's budget of time without a sign of life (output, a display, a
	// tool call); it does not run while a relayed tool call does. 0: none.
	Idle time.Duration
	// Relay serves the cell's tool() calls (nil: they are refused).
	Relay Relay
}

// ErrBusy is the error of a cell sent while another runs.
var ErrBusy = errors.New("another cell is running in this kernel")

// Run runs one cell. When ctx ends or the idle budget is spent, the cell is
// interrupted (through the control descriptor, as SIGINT to the interpreter's main
// thread from inside), and the kernel killed if it does not end within a grace: the
// Cell says which. An error is returned only when the kernel cannot take the cell.
func (k *Kernel) Run(ctx context.Context, code string, o RunOptions) (*Cell, error) {
	c := &Cell{Result: -1}
	k.mu.Lock()
	if k.sink != nil {
		k.mu.Unlock()
		return nil, ErrBusy
	}
	k.sink = c
	k.mu.Unlock()
	defer func() {
		k.mu.Lock()
		k.sink = nil
		k.mu.Unlock()
	}()
	req, _ := json.Marshal(map[string]any{"type": "execute", "id": 1, "code": code})
	if _, err := k.toK.Write(append(req, '\n')); err != nil {
		return nil, fmt.Errorf("the kernel does not take cells: %v", err)
	}
	idle := o.Idle
	if idle <= 0 {
		idle = 1<<63 - 1
	}
	timer := time.NewTimer(idle)
	defer timer.Stop()
	var graceC <-chan time.Time
	interrupt := func(why string) {
		if c.Interrupted != "" {
			return
		}
		c.Interrupted = why
		// A kernel that no longer reads its control descriptor is killed after the
		// grace like one that ignores the interrupt.
		_, _ = k.ctl.Write([]byte{'i'})
		g := time.NewTimer(interruptGrace)
		graceC = g.C
	}
	done := ctx.Done()
	for {
		select {
		case m, ok := <-k.msgs:
			if !ok {
				k.settleRaw(c)
				c.Status = "died"
				if c.Interrupted != "" {
					c.Status = "killed"
				}
				return c, nil
			}
			if c.Interrupted == "" {
				timer.Reset(idle)
			}
			switch m.Type {
			case "stream":
				k.awaitRaw(m.Sync)
				k.mu.Lock()
				c.stream(m.Name, m.Text)
				k.mu.Unlock()
				k.pass(m.Sync)
			case "display", "result":
				k.awaitRaw(m.Sync)
				k.mu.Lock()
				c.bundle(m.Data, m.Type == "result")
				k.mu.Unlock()
				k.pass(m.Sync)
			case "error":
				c.Error = strings.TrimRight(m.Trace, "\n")
				if c.Error == "" {
					c.Error = m.Ename + ": " + m.Evalue
				}
			case "tool_call":
				timer.Stop()
				text, failed := "tool() is not available here", true
				if o.Relay != nil {
					text, failed = o.Relay(ctx, m.Name, m.Args)
				}
				resp, _ := json.Marshal(map[string]any{"type": "tool_result", "id": m.ID, "text": text, "error": failed})
				if _, err := k.toK.Write(append(resp, '\n')); err != nil {
					k.settleRaw(c)
					c.Status = "died"
					return c, nil
				}
				if c.Interrupted == "" {
					timer.Reset(idle)
				}
			case "done":
				k.awaitRaw(m.Sync)
				k.settleRaw(c)
				k.pass(m.Sync)
				c.Status = m.Status
				return c, nil
			}
		case <-timer.C:
			interrupt(fmt.Sprintf("it showed no sign of life for %v", o.Idle))
		case <-done:
			done = nil
			interrupt("the call was cancelled")
		case <-graceC:
			// It did not end after the interrupt: the kernel goes, and its state.
			k.Close()
			k.settleRaw(c)
			c.Status = "killed"
			return c, nil
		}
	}
}

// holdAtMark keeps what the stream gives after a sync mark until the host has reached
// the message the mark comes before, so that a program's output that follows a print
// is not shown before it (bounded: a message that never comes does not stop the
// stream).
func (k *Kernel) holdAtMark(stream int) {
	deadline := time.NewTimer(2 * time.Second)
	defer deadline.Stop()
	for {
		k.mu.Lock()
		reached := k.passed[stream] >= k.marks[stream]
		k.mu.Unlock()
		if reached {
			return
		}
		select {
		case <-k.wantWake[stream]:
		case <-k.ended:
			return
		case <-deadline.C:
			return
		}
	}
}

// awaitRaw waits, when the driver wrote sync marks, until the interpreter's own
// streams have given all they had before the message that follows them — for as long
// as they keep giving: a stream silent for a second without its mark (a cell that
// closed or redirected it) is not waited for.
func (k *Kernel) awaitRaw(marked bool) {
	if !marked {
		return
	}
	k.mu.Lock()
	k.want[0]++
	k.want[1]++
	k.mu.Unlock()
	start := time.Now()
	var tick *time.Ticker
	for {
		k.mu.Lock()
		caught := k.marks[0] >= k.want[0] && k.marks[1] >= k.want[1]
		last := k.rawAt
		if last.Before(start) {
			last = start
		}
		if !caught && time.Since(last) > time.Second {
			// A stream gave up its marks (closed, redirected): count from here on.
			k.want, k.passed = k.marks, k.marks
			caught = true
		}
		k.mu.Unlock()
		if caught {
			return
		}
		if tick == nil {
			tick = time.NewTicker(20 * time.Millisecond)
			defer tick.Stop()
		}
		select {
		case <-k.rawWake:
		case <-tick.C:
		}
	}
}

// pass says the cell has taken in the marked message awaitRaw waited for: what the
// streams gave after its mark may follow now.
func (k *Kernel) pass(marked bool) {
	if !marked {
		return
	}
	k.mu.Lock()
	k.passed = k.want
	k.mu.Unlock()
	k.wakeReaders()
}

func (k *Kernel) wakeReaders() {
	for _, ch := range k.wantWake {
		select {
		case ch <- struct{}{}:
		default:
		}
	}
}

// settleRaw closes the cell's text.
func (k *Kernel) settleRaw(c *Cell) {
	k.mu.Lock()
	c.finish()
	k.mu.Unlock()
}
