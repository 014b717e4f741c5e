package hook

import (
	"context"
	"errors"
	"io"
	"os"
	"time"

	"github.com/gantry-dev/gantry/internal/contain"
	"github.com/gantry-dev/gantry/internal/procgroup"
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
	// declared: the hook declared itself async on the first line of its stdout. The
	// execution execute returns then says nothing else: the hook runs on in the
	// background, and the one its detacher is given at its end has its stdout without
	// that line.
	declared bool
	// asyncTimeout is how long a hook that declared itself async may run from then.
	asyncTimeout time.Duration
}

// Why a hook was stopped (the cause of its stop context).
var (
	errTimedOut  = errors.New("the hook's timeout passed")
	errCancelled = errors.New("the hook's run was cancelled")
)

// execute runs cmd with input on its stdin until it exits, timeout passes or ctx is
// done, and makes sure that nothing of its group is left that it did not detach on
// purpose: once the main process has exited, its group is given drainGrace to close the
// output pipes and is then ended (see newCommand), so a background grandchild neither
// hangs the call nor outlives it unless it was detached.
//
// With a detacher d, a hook whose first line of stdout declares it async (see
// firstLine) is not waited for: execute returns at once an execution that says only
// that, and the hook runs on in d's background, no longer stopped by ctx or timeout but
// by d.ctx and its asyncTimeout from then; d.then gets its end.
func execute(ctx context.Context, proc *contain.Process, input []byte, timeout time.Duration, d *detacher) execution {
	p, err := newPipes()
	if err != nil {
		return execution{startErr: err}
	}
	proc.Cmd.Stdin, proc.Cmd.Stdout, proc.Cmd.Stderr = p.inR, p.outW, p.errW
	err = proc.Start()
	p.closeChildEnds() // the children hold them now
	if err != nil {
		p.close()
		return execution{startErr: err}
	}
	fed := make(chan struct{})
	go func() {
		_, _ = p.inW.Write(input) // fails with EPIPE when the hook does not read it
		_ = p.inW.Close()
		close(fed)
	}()
	var stdout, stderr = &capture{max: maxCapture}, &capture{max: maxCapture}
	var out io.Writer = stdout
	var declared <-chan time.Duration // nil: no declaration is watched for
	if d != nil {
		fl := newFirstLine(stdout)
		out, declared = fl, fl.declared
	}
	outDone, errDone := drain(out, p.outR), drain(stderr, p.errR)
	// The process is stopped by cancelling stop, with the cause saying why: the
	// deadline that applies changes when the hook declares itself async.
	stop, cancel := context.WithCancelCause(context.Background())
	ended := make(chan procgroup.Ending, 1)
	go func() { ended <- proc.Wait(stop, 0, termGrace, func() { waitAll(drainGrace, outDone, errDone) }) }()
	finish := func(end procgroup.Ending) execution {
		cancel(nil)
		x := execution{err: end.Err, blocked: proc.Blocked()}
		if end.Cancelled {
			x.timedOut = errors.Is(context.Cause(stop), errTimedOut)
			x.cancelled = !x.timedOut
		}
		// Only what was detached (setsid, nohup) can still be alive and hold a pipe.
		deadline := time.Now().Add(drainGrace)
		_ = p.outR.SetReadDeadline(deadline)
		_ = p.errR.SetReadDeadline(deadline)
		<-outDone
		<-errDone
		_ = p.inW.Close() // unblocks a write to a stdin nobody reads
		<-fed
		p.close()
		x.stdout, x.stderr, x.stdoutTruncated = stdout.String(), stderr.String(), stdout.Truncated()
		return x
	}
	// background runs the hook on once it declared itself async, for after at most;
	// done is its end when it had already ended.
	background := func(after time.Duration, done *execution) execution {
		d.spawn(func() {
			x := done
			if x == nil {
				t := time.NewTimer(after)
				defer t.Stop()
				var e procgroup.Ending
				select {
				case e = <-ended:
				case <-t.C:
					cancel(errTimedOut)
					e = <-ended
				case <-d.ctx.Done():
					cancel(errCancelled)
					e = <-ended
				}
				f := finish(e)
				x = &f
			}
			x.stdout = afterFirstLine(x.stdout)
			x.declared, x.asyncTimeout = true, after
			d.then(*x)
		})
		return execution{declared: true, asyncTimeout: after}
	}
	var expired <-chan time.Time
	if timeout > 0 {
		t := time.NewTimer(timeout)
		defer t.Stop()
		expired = t.C
	}
	select {
	case end := <-ended:
		// It may have declared itself and ended before the declaration was seen.
		x := finish(end)
		select {
		case after := <-declared:
			return background(after, &x)
		default:
			return x
		}
	case <-expired:
		cancel(errTimedOut)
	case <-ctx.Done():
		cancel(errCancelled)
	case after := <-declared:
		return background(after, nil)
	}
	return finish(<-ended)
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
