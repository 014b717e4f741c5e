// Package debugtool is the debug tool: the model's debugger, over the Debug Adapter
// Protocol adapters of internal/dap. One debug session per conversation, with a
// strict time to live; its breakpoints are kept between sessions.
package debugtool

import (
	"context"
	_ "embed"
	"os/exec"
	"sync"
	"time"

	"github.com/gantry-dev/gantry/internal/contain"
	"github.com/gantry-dev/gantry/internal/dap"
	"github.com/gantry-dev/gantry/internal/tool"
)

//go:embed debug.md
var doc string

// Defaults of Options.
const (
	DefaultTTL   = 30 * time.Minute
	DefaultWait  = 30 * time.Second
	DefaultStart = 2 * time.Minute
	// requestTimeout bounds one request to the adapter (a stack, an evaluate).
	requestTimeout = 30 * time.Second
)

// Caps of what a call returns.
const (
	maxFrames   = 30
	maxChildren = 50
	maxValue    = 400
	maxThreads  = 100
)

// Options configure the tool.
type Options struct {
	// Specs is the adapter table (nil: dap.Defaults()).
	Specs []dap.Spec
	// Python is debugpy's interpreter ("": the project's .venv or venv, then python3).
	Python string
	// Policy is the session's: adapters and their debuggees run under its deny
	// rules, sandbox and environment (nil: gantry's own).
	Policy *contain.Policy
	// TTL is a session's strict lifetime (0: DefaultTTL); Wait how long continue,
	// step and launch wait for a stop (0: DefaultWait); Start bounds an adapter's start
	// and launch, a build included (0: DefaultStart).
	TTL, Wait, Start time.Duration
	// MaxOutput bounds a result (0: tool.DefaultMaxOutput).
	MaxOutput int
}

// Debugger is a conversation's debug tool and its session: a toolset, closed with the
// conversation (the adapter and the program are killed then).
type Debugger struct {
	o Options

	mu          sync.Mutex
	sess        *dap.Session
	cwd         string // where the session runs
	timer       *time.Timer
	expired     string // said once to the next call after a session expired
	breakpoints map[string][]int
	lastThread  int

	usableAt time.Time
	usable   bool

	onExpire func() // for tests: called once a session has expired
}

// New returns the debug tool's toolset.
func New(o Options) *Debugger {
	if o.Specs == nil {
		o.Specs = dap.Defaults()
	}
	if o.TTL <= 0 {
		o.TTL = DefaultTTL
	}
	if o.Wait <= 0 {
		o.Wait = DefaultWait
	}
	if o.Start <= 0 {
		o.Start = DefaultStart
	}
	return &Debugger{o: o, breakpoints: map[string][]int{}}
}

// Tools is the debug tool.
func (d *Debugger) Tools() []tool.Tool { return []tool.Tool{d.tool()} }

// Close ends the session, if one runs.
func (d *Debugger) Close(context.Context) error {
	d.mu.Lock()
	s := d.takeLocked()
	d.mu.Unlock()
	if s != nil {
		return s.Close()
	}
	return nil
}

// Session is the running session (nil: none), for measurements beside the tool.
func (d *Debugger) Session() *dap.Session {
	d.mu.Lock()
	defer d.mu.Unlock()
	return d.sess
}

// Usable tells whether an adapter's program is installed here (cheap: asked before
// each request; the answer is kept for a while).
func (d *Debugger) Usable() bool {
	d.mu.Lock()
	defer d.mu.Unlock()
	if time.Since(d.usableAt) < 30*time.Second {
		return d.usable
	}
	d.usable, d.usableAt = false, time.Now()
	for _, s := range d.o.Specs {
		for _, c := range s.Commands {
			prog := c[0]
			if prog == "{python}" {
				prog = "python3"
				if d.o.Python != "" {
					prog = d.o.Python
				}
			}
			if _, err := exec.LookPath(prog); err == nil {
				d.usable = true
				return true
			}
		}
	}
	return false
}

func (d *Debugger) tool() tool.Tool {
	return tool.New(tool.Def[args]{
		Name:        "debug",
		Family:      "debugger",
		Label:       "Debugger",
		Description: doc,
		Level:       tool.LevelExec,
		Kind:        tool.KindExecute,
		Icon:        "🐞",
		Brief:       true,
		Counter:     tool.CountCommand,
		Principal:   func(a args) string { return a.Operation },
		Title:       func(_ tool.Env, a args, _ []string) string { return title(a) },
		Ops:         d.ops(),
	})
}
