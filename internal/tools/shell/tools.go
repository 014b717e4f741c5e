package shell

import (
	"time"

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
