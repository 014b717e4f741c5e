// The running session: found, described, expired and ended.

package debugtool

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"
	"time"

	"github.com/gantry-dev/gantry/internal/dap"
	"github.com/gantry-dev/gantry/internal/tool"
)

// current is the running session, or the sentence that says there is none.
func (d *Debugger) current(env tool.Env) (*dap.Session, tool.Result, bool) {
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.expired != "" && d.sess == nil {
		msg := d.expired
		d.expired = ""
		return nil, tool.Fail(msg), false
	}
	s := d.sess
	if s == nil {
		return nil, tool.Fail("No debug session runs: launch a program (or attach to one) first."), false
	}
	if sn := s.Snapshot(); sn.State == dap.Crashed {
		d.takeLocked()
		go s.Close()
		return nil, tool.Fail(crashText(env, s, sn)), false
	}
	return s, tool.Result{}, true
}

func crashText(env tool.Env, s *dap.Session, sn dap.Snapshot) string {
	msg := fmt.Sprintf("The %s adapter ended unexpectedly, and the session with it", s.Spec.ID)
	if l := strings.TrimSpace(sn.Log); l != "" {
		msg += "; its last words: " + tool.OneLine(lastLines(l, 5), 600)
	}
	return msg + ". Launch again to start a new session."
}

func lastLines(s string, n int) string {
	lines := strings.Split(strings.TrimSpace(s), "\n")
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	return strings.Join(lines, " | ")
}

// takeLocked detaches the session (d.mu held) and returns it.
func (d *Debugger) takeLocked() *dap.Session {
	s := d.sess
	d.sess = nil
	if d.timer != nil {
		d.timer.Stop()
		d.timer = nil
	}
	d.lastThread = 0
	return s
}

// thread is the thread a call acts on: the one given, else the one the program is
// stopped in (a stop the model has not been told of included), else the one that
// stopped last.
func (d *Debugger) thread(s *dap.Session, given int) int {
	if given != 0 {
		return given
	}
	if sn := s.Snapshot(); sn.State == dap.Stopped && sn.ThreadID != 0 {
		return sn.ThreadID
	}
	d.mu.Lock()
	defer d.mu.Unlock()
	return d.lastThread
}

// fail is a request's error as a sentence (the adapter's crash, when that is why).
func (d *Debugger) fail(s *dap.Session, what string, err error) tool.Result {
	if sn := s.Snapshot(); sn.State == dap.Crashed {
		d.mu.Lock()
		if d.sess == s {
			d.takeLocked()
		}
		d.mu.Unlock()
		go s.Close()
		return tool.Fail(crashText(tool.Env{}, s, sn))
	}
	var re *dap.ResponseError
	if errors.As(err, &re) {
		return tool.Fail(refusal(s.Spec.ID, what, re.Message))
	}
	if errors.Is(err, context.DeadlineExceeded) {
		return tool.Fail(fmt.Sprintf("The %s adapter did not answer %s within %v.", s.Spec.ID, what, requestTimeout))
	}
	return tool.Fail(fmt.Sprintf("debug %s failed: %v.", what, err))
}

// expire ends s at the end of its time to live, if it still is the session.
func (d *Debugger) expire(s *dap.Session) {
	d.mu.Lock()
	if d.sess != s {
		d.mu.Unlock()
		return
	}
	d.takeLocked()
	d.expired = fmt.Sprintf("The debug session (%s) expired after %v, its strict time to live, and was terminated; launch again to go on.", s.Spec.ID, d.o.TTL)
	hook := d.onExpire
	d.mu.Unlock()
	s.Close()
	if hook != nil {
		hook()
	}
}

func (d *Debugger) status(env tool.Env) tool.Result {
	d.mu.Lock()
	s, expired := d.sess, d.expired
	var bps []string
	for _, f := range slices.Sorted(maps.Keys(d.breakpoints)) {
		bps = append(bps, rel(env.Cwd, f)+":"+joinInts(d.breakpoints[f]))
	}
	d.mu.Unlock()
	bpText := "No breakpoints are set."
	if len(bps) > 0 {
		bpText = "Breakpoints: " + strings.Join(bps, ", ") + "."
	}
	if s == nil {
		msg := "No debug session runs."
		if expired != "" {
			msg = expired
		}
		return tool.Result{Text: msg + " " + bpText, Display: tool.Display{Note: "no session"}}
	}
	rctx, cancel := context.WithTimeout(context.Background(), requestTimeout)
	defer cancel()
	age := time.Since(s.Started).Round(time.Second)
	left := (d.o.TTL - time.Since(s.Started)).Round(time.Second)
	r := d.describe(rctx, env, s, s.Snapshot(), fmt.Sprintf("A %s, started %v ago (it expires in %v)", describeSession(env, s), age, left))
	r.Text += "\n" + bpText
	return r
}

// terminate ends the session: the adapter and the program are stopped.
func (d *Debugger) terminate(_ context.Context, env tool.Env, s *dap.Session, _ args) tool.Result {
	d.mu.Lock()
	if d.sess == s {
		d.takeLocked()
	}
	d.mu.Unlock()
	what := describeSession(env, s)
	if err := s.Close(); err != nil {
		return tool.Fail(fmt.Sprintf("Terminated the %s, with an error: %v.", what, err))
	}
	return tool.Result{Text: fmt.Sprintf("Terminated the %s: the adapter and the program are stopped.", what),
		Display: tool.Display{Note: "terminated"}}
}

// describeSession names a session: its adapter and what it debugs.
func describeSession(env tool.Env, s *dap.Session) string {
	if s.Program != "" {
		return fmt.Sprintf("%s session of %s", s.Spec.ID, rel(env.Cwd, s.Program))
	}
	return fmt.Sprintf("%s session attached to port %d", s.Spec.ID, s.Port)
}
