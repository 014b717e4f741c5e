package shell

import (
	"context"
	"fmt"
	"time"

	"github.com/gantry-dev/gantry/internal/contain"
	"github.com/gantry-dev/gantry/internal/tool"
)

// Default limits of bash's timeout.
const (
	DefaultTimeout = 120 * time.Second
	MaxTimeout     = 600 * time.Second
)

// Options configures the shell tools of a session.
type Options struct {
	// Tasks owns the session's background commands. When nil, bash refuses
	// run_in_background and Tools declares neither task_output nor task_kill.
	Tasks *Tasks
	// DefaultTimeout is bash's timeout when the call gives none (config bash.timeout);
	// 0 means DefaultTimeout (120 s).
	DefaultTimeout time.Duration
	// MaxTimeout is the largest timeout a call may ask for; 0 means MaxTimeout (600 s).
	MaxTimeout time.Duration
	// Policy is the session's (nil: gantry's own): its Judge checks every program a
	// command really executes (the exec supervisor, see package contain), its Sandbox
	// says for each call the sandbox the command runs in — with either, commands run
	// here, never in an editor's terminal — and its Env gives for each call the
	// session's environment (NAME=value, a later one of a name wins), added to
	// gantry's own for every command, foreground or background (the env of Claude
	// settings, the exports of SessionStart hooks). gantry's settings for commands
	// (GANTRY, PAGER, TERM, …) still win.
	Policy *contain.Policy
}

// withDefaults fills in the zero fields and keeps the default within the maximum.
func (o Options) withDefaults() Options {
	if o.MaxTimeout <= 0 {
		o.MaxTimeout = MaxTimeout
	}
	if o.DefaultTimeout <= 0 {
		o.DefaultTimeout = DefaultTimeout
	}
	o.DefaultTimeout = min(o.DefaultTimeout, o.MaxTimeout)
	return o
}

// Tools returns bash, task_output and task_kill (the last two only with o.Tasks).
func Tools(o Options) []tool.Tool {
	o = o.withDefaults()
	ts := []tool.Tool{bashTool(o)}
	if o.Tasks != nil {
		ts = append(ts, taskOutputTool(o.Tasks), taskKillTool(o.Tasks))
	}
	return ts
}

// Set is the shell tools of a session as a tool.Toolset: bash, task_output and
// task_kill, and the background tasks they started, which Close stops (their
// processes killed, their output files removed).
type Set struct {
	tools []tool.Tool
	tasks *Tasks
}

// NewSet returns the shell tools over o.Tasks (see Tools).
func NewSet(o Options) *Set { return &Set{tools: Tools(o), tasks: o.Tasks} }

// Tools implements tool.Toolset.
func (s *Set) Tools() []tool.Tool { return s.tools }

// Close implements tool.Toolset: every background task still running is killed.
func (s *Set) Close(context.Context) error {
	if s.tasks == nil {
		return nil
	}
	if err := s.tasks.Close(); err != nil {
		return fmt.Errorf("stopping the background tasks: %w", err)
	}
	return nil
}

// Tasks is the owner of the background tasks (nil when there are none).
func (s *Set) Tasks() *Tasks { return s.tasks }

// Running lists the commands of the background tasks still running.
func (s *Set) Running() []string {
	if s.tasks == nil {
		return nil
	}
	return s.tasks.Running()
}
