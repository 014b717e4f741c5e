package shell

import (
	"context"
	"io"
	"os"
	"os/exec"
	"time"

	"github.com/gantry-dev/gantry/internal/procgroup"
)

// outcome is what a foreground command did.
type outcome struct {
	output    string
	err       error // cmd.Wait's error: nil, or an *exec.ExitError for a non-zero exit
	timedOut  bool
	cancelled bool
}

// runForeground runs cmd with stdout and stderr on one pipe (so their order is kept)
// until it exits, timeout passes or ctx is done, and makes sure no process of its group
// is left either way. The error is for a command that could not start.
func runForeground(ctx context.Context, cmd *exec.Cmd, timeout time.Duration) (outcome, error) {
	pr, pw, err := os.Pipe()
	if err != nil {
		return outcome{}, err
	}
	defer pr.Close()
	cmd.Stdout, cmd.Stderr = pw, pw
	err = cmd.Start()
	pw.Close() // the children hold the write end now
	if err != nil {
		return outcome{}, err
	}
	out := newCapture(captureHead, captureTail)
	drained := make(chan struct{})
	go func() {
		_, _ = io.Copy(out, pr)
		close(drained)
	}()
	end := procgroup.Wait(ctx, cmd, timeout, termGrace, func() {
		// A background grandchild may keep the pipe open: read on briefly, then stop it.
		select {
		case <-drained:
		case <-time.After(drainGrace):
		}
	})
	o := outcome{err: end.Err, timedOut: end.TimedOut, cancelled: end.Cancelled}
	// The group is gone; only a process that left it (setsid) could still hold the pipe.
	_ = pr.SetReadDeadline(time.Now().Add(drainGrace))
	<-drained
	o.output = out.String()
	return o, nil
}
