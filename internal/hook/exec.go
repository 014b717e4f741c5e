package hook

import (
	"context"
	"io"
	"os"
	"time"

	"github.com/gantry-dev/gantry/internal/contain"
)

// execution is what one run of a hook command did.
type execution struct {
	stdout, stderr  string
	stdoutTruncated bool
	// err is cmd.Wait's error: nil, or an *exec.ExitError for a non-zero exit or a signal.
	err error
	// startErr is set when the command could not be started at all.
	startErr  error
	timedOut  bool
	cancelled bool
	// blocked are the programs the exec supervisor refused it.
	blocked []contain.Refusal
}

// execute runs cmd with input on its stdin until it exits, timeout passes or ctx is
// done, and makes sure that nothing of its group is left that it did not detach on
// purpose: once the main process has exited, its group is given drainGrace to close the
// output pipes and is then ended (see newCommand), so a background grandchild neither
// hangs the call nor outlives it unless it was detached.
func execute(ctx context.Context, proc *contain.Process, input []byte, timeout time.Duration) execution {
	p, err := newPipes()
	if err != nil {
		return execution{startErr: err}
	}
	defer p.close()
	proc.Cmd.Stdin, proc.Cmd.Stdout, proc.Cmd.Stderr = p.inR, p.outW, p.errW
	err = proc.Start()
	p.closeChildEnds() // the children hold them now
	if err != nil {
		return execution{startErr: err}
	}
	fed := make(chan struct{})
	go func() {
		_, _ = p.inW.Write(input) // fails with EPIPE when the hook does not read it
		_ = p.inW.Close()
		close(fed)
	}()
	var stdout, stderr = &capture{max: maxCapture}, &capture{max: maxCapture}
	outDone, errDone := drain(stdout, p.outR), drain(stderr, p.errR)
	end := proc.Wait(ctx, timeout, termGrace, func() { waitAll(drainGrace, outDone, errDone) })
	x := execution{err: end.Err, timedOut: end.TimedOut, cancelled: end.Cancelled, blocked: proc.Blocked()}
	// Only what was detached (setsid, nohup) can still be alive and hold a pipe.
	deadline := time.Now().Add(drainGrace)
	_ = p.outR.SetReadDeadline(deadline)
	_ = p.errR.SetReadDeadline(deadline)
	<-outDone
	<-errDone
	_ = p.inW.Close() // unblocks a write to a stdin nobody reads
	<-fed
	x.stdout, x.stderr, x.stdoutTruncated = stdout.String(), stderr.String(), stdout.Truncated()
	return x
}

// drain copies r into w until r ends and closes the returned channel then.
func drain(w io.Writer, r io.Reader) <-chan struct{} {
	done := make(chan struct{})
	go func() {
		_, _ = io.Copy(w, r)
		close(done)
	}()
	return done
}

// waitAll waits for every channel to close, for d at most.
func waitAll(d time.Duration, chs ...<-chan struct{}) {
	t := time.NewTimer(d)
	defer t.Stop()
	for _, ch := range chs {
		select {
		case <-ch:
		case <-t.C:
			return
		}
	}
}

// pipes are a hook's stdin, stdout and stderr. The parent keeps inW, outR and errR.
type pipes struct {
	inR, inW, outR, outW, errR, errW *os.File
}

func newPipes() (*pipes, error) {
	var p pipes
	var err error
	if p.inR, p.inW, err = os.Pipe(); err != nil {
		return nil, err
	}
	if p.outR, p.outW, err = os.Pipe(); err != nil {
		p.close()
		return nil, err
	}
	if p.errR, p.errW, err = os.Pipe(); err != nil {
		p.close()
		return nil, err
	}
	return &p, nil
}

func (p *pipes) closeChildEnds() {
	for _, f := range []*os.File{p.inR, p.outW, p.errW} {
		if f != nil {
			_ = f.Close()
		}
	}
}

// close closes every end; closing one twice is harmless.
func (p *pipes) close() {
	for _, f := range []*os.File{p.inR, p.inW, p.outR, p.outW, p.errR, p.errW} {
		if f != nil {
			_ = f.Close()
		}
	}
}
