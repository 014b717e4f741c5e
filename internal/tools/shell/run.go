package shell

import (
	"context"
	"io"
	"os"
	"time"

	"github.com/gantry-dev/gantry/internal/contain"
	"github.com/gantry-dev/gantry/internal/tool"
)

// outcome is what a foreground command did.
type outcome struct {
	output    string
	err       error // cmd.Wait's error: nil, or an *exec.ExitError for a non-zero exit
	timedOut  bool
	cancelled bool
	// blocked are the lines for what the exec supervisor refused (or could not watch).
	blocked []string
	blocks  []tool.Blocked
}

// runForeground runs cmd with stdout and stderr on one pipe (so their order is kept)
// until it exits, timeout passes or ctx is done, and makes sure no process of its group
// is left either way. The error is for a command that could not start.
func runForeground(ctx context.Context, p *contain.Process, timeout time.Duration) (outcome, error) {
	pr, pw, err := os.Pipe()
	if err != nil {
		return outcome{}, err
	}
	defer pr.Close()
	p.Cmd.Stdout, p.Cmd.Stderr = pw, pw
	err = p.Start()
	pw.Close() // the children hold the write end now
	if err != nil {
		return outcome{}, err
	}
	out := newCapture(captureHead, captureTail)
	var dst io.Writer = out
	if live := tool.ProgressOf(ctx); live != nil {
		dst = io.MultiWriter(out, progressWriter(live))
	}
	drained := make(chan struct{})
	go func() {
		_, _ = io.Copy(dst, pr)
		close(drained)
	}()
	end := p.Wait(ctx, timeout, termGrace, func() {
		// A background grandchild may keep the pipe open: read on briefly, then stop it.
		select {
		case <-drained:
		case <-time.After(drainGrace):
		}
	})
	o := outcome{err: end.Err, timedOut: end.TimedOut, cancelled: end.Cancelled, blocked: blockedLines(p), blocks: blocks(p)}
	// The group is gone; only a process that left it (setsid) could still hold the pipe.
	_ = pr.SetReadDeadline(time.Now().Add(drainGrace))
	<-drained
	o.output = out.String()
	return o, nil
}

// progressWriter hands what a command prints to the call's progress writer.
type progressWriter func(p []byte)

func (w progressWriter) Write(p []byte) (int, error) {
	w(p)
	return len(p), nil
}
