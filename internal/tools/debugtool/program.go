// Driving the program: continue, steps and pause, and where it stopped.

package debugtool

import (
	"context"
	"fmt"
	"os"
	"strings"

	"github.com/gantry-dev/gantry/internal/dap"
	"github.com/gantry-dev/gantry/internal/tool"
)

// resume lets the program run with the DAP command (continue, next, stepIn,
// stepOut) and says where it stopped, or that it still runs.
func (d *Debugger) resume(command string) sessionOp {
	return func(ctx context.Context, env tool.Env, s *dap.Session, a args) tool.Result {
		return d.resumeWith(ctx, env, s, a, command)
	}
}

func (d *Debugger) resumeWith(ctx context.Context, env tool.Env, s *dap.Session, a args, command string) tool.Result {
	sn := s.Snapshot()
	if sn.Over() {
		return d.describe(ctx, env, s, sn, "The program is no longer running")
	}
	if command != "continue" && sn.State != dap.Stopped {
		return tool.Fail(fmt.Sprintf("The program is running; %s needs it stopped (pause, or wait for a breakpoint with status).", a.Operation))
	}
	if command == "continue" && sn.State == dap.Running {
		return tool.Fail("The program is already running; pause it, or call status to see whether it stopped.")
	}
	sn, err := s.Resume(ctx, command, d.thread(s, a.ThreadID), d.o.Wait)
	if ctx.Err() != nil {
		return tool.Fail(fmt.Sprintf("debug %s was cancelled while the program ran; the session is still there (status, pause or terminate).", strings.ReplaceAll(a.Operation, "_", " ")))
	}
	if err != nil {
		return d.fail(s, strings.ReplaceAll(a.Operation, "_", " "), err)
	}
	rctx, cancel := context.WithTimeout(context.Background(), requestTimeout)
	defer cancel()
	return d.describe(rctx, env, s, sn, "")
}

func (d *Debugger) pause(ctx context.Context, env tool.Env, s *dap.Session, a args) tool.Result {
	sn, err := s.Pause(ctx, d.thread(s, a.ThreadID), d.o.Wait)
	if err != nil {
		return d.fail(s, "pause", err)
	}
	rctx, cancel := context.WithTimeout(ctx, requestTimeout)
	defer cancel()
	return d.describe(rctx, env, s, sn, "")
}

// describe says where the session is: stopped (why, where, the line), running, or
// ended (the exit code); the stop's place is the result's location.
func (d *Debugger) describe(ctx context.Context, env tool.Env, s *dap.Session, sn dap.Snapshot, lead string) tool.Result {
	var text, note string
	var loc *tool.Location
	switch sn.State {
	case dap.Stopped:
		d.mu.Lock()
		if d.sess == s && sn.ThreadID != 0 {
			d.lastThread = sn.ThreadID
		}
		d.mu.Unlock()
		reason := sn.Reason
		if sn.Description != "" && !strings.EqualFold(sn.Description, reason) {
			reason += ": " + tool.OneLine(sn.Description, 200)
		}
		where := ""
		frames, _, err := s.Stack(ctx, sn.ThreadID, 1)
		if err == nil && len(frames) > 0 {
			f := frames[0]
			path := ""
			if f.Source != nil {
				path = f.Source.Path
			}
			where = fmt.Sprintf("%s:%d in %s", rel(env.Cwd, path), f.Line, f.Name)
			if env.CanRead(path) == nil { // a read-denied file's line is not quoted
				if line := sourceLine(path, f.Line); line != "" {
					where += "\n  " + fmt.Sprint(f.Line) + " | " + line
				}
			}
			if path != "" {
				loc = &tool.Location{Path: path, Line: f.Line}
			}
			note = fmt.Sprintf("stopped at %s:%d (%s)", rel(env.Cwd, path), f.Line, sn.Reason)
		} else {
			note = "stopped (" + sn.Reason + ")"
		}
		text = fmt.Sprintf("Stopped (%s), thread %d", reason, sn.ThreadID)
		if where != "" {
			text += ", at " + where
		}
	case dap.Running:
		text = fmt.Sprintf("Still running after %v — call pause, or status later.", d.o.Wait)
		note = "running"
	case dap.Exited:
		text, note = exitText(sn)
	case dap.Terminated:
		text = "The session ended: the adapter terminated it."
		note = "terminated"
	case dap.Crashed:
		d.mu.Lock()
		if d.sess == s {
			d.takeLocked()
		}
		d.mu.Unlock()
		go s.Close()
		return tool.Fail(crashText(env, s, sn))
	}
	if lead != "" {
		text = lead + ". " + text
	}
	if sn.Over() {
		if out, _ := s.Output(); out != "" {
			text += "\nOutput:\n" + tool.Bound(out, tool.MaxOutputOr(d.o.MaxOutput)/2)
		}
		text += messagesSection(s)
	}
	return tool.Result{Text: text, Display: tool.Display{Note: note, Location: loc}}
}

// sourceLine is line n of path, trimmed and bounded ("" when it cannot be read).
func sourceLine(path string, n int) string {
	if path == "" || n < 1 {
		return ""
	}
	data, err := os.ReadFile(path)
	if err != nil || len(data) > 16<<20 {
		return ""
	}
	lines := strings.Split(string(data), "\n")
	if n > len(lines) {
		return ""
	}
	return tool.OneLine(strings.TrimSpace(lines[n-1]), 200)
}
