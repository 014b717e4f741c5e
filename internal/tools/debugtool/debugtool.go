// Package debugtool is the debug tool: the model's debugger, over the Debug Adapter
// Protocol adapters of internal/dap. One debug session per conversation, with a
// strict time to live; its breakpoints are kept between sessions.
package debugtool

import (
	"context"
	_ "embed"
	"errors"
	"fmt"
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
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

type args struct {
	Operation  string   `json:"operation" jsonschema:"enum=adapters,enum=status,enum=breakpoints,enum=launch,enum=attach,enum=continue,enum=pause,enum=step_over,enum=step_in,enum=step_out,enum=threads,enum=stack,enum=scopes,enum=variables,enum=evaluate,enum=output,enum=terminate" jsonschema_description:"What to do."`
	Program    string   `json:"program,omitempty" jsonschema_description:"launch: the program, relative to the working directory: a Go package folder (. or ./cmd/x) or .go file, a Python script, a built executable (C, C++, Rust)."`
	Args       []string `json:"args,omitempty" jsonschema_description:"launch: the program's arguments."`
	Adapter    string   `json:"adapter,omitempty" jsonschema_description:"launch/attach: the adapter (delve, debugpy, lldb, dart); by default the program's kind decides, and for attach the project's markers."`
	Port       int      `json:"port,omitempty" jsonschema_description:"attach: the port of the debug server on this machine (dlv --headless --listen, python -m debugpy --listen)."`
	File       string   `json:"file,omitempty" jsonschema_description:"breakpoints: the source file, relative to the working directory."`
	Lines      []int    `json:"lines,omitempty" jsonschema_description:"breakpoints: 1-based lines; empty clears the file's breakpoints."`
	ThreadID   int      `json:"thread_id,omitempty" jsonschema_description:"continue/pause/step/stack: the thread (default: the one that stopped last)."`
	FrameID    int      `json:"frame_id,omitempty" jsonschema_description:"scopes/evaluate: a frame id from stack (evaluate's default: the top frame of the stopped thread)."`
	Reference  int      `json:"reference,omitempty" jsonschema_description:"variables: a reference from scopes or from a structured variable."`
	Expression string   `json:"expression,omitempty" jsonschema_description:"evaluate: the expression, in the language of the program."`
}

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
		Principal:   principal,
		Paths: func(env tool.Env, a args) []string {
			switch {
			case a.Operation == "launch" && a.Program != "":
				return []string{env.Abs(a.Program)}
			case a.Operation == "breakpoints" && a.File != "":
				return []string{env.Abs(a.File)}
			}
			return nil
		},
		Title: func(env tool.Env, a args, _ []string) string { return title(a) },
		Check: check,
		Run:   d.run,
	})
}

// principal is what permission rules match: the operation and its main argument
// ("launch ./cmd/app", "evaluate x+1").
func principal(a args) string {
	switch a.Operation {
	case "launch":
		return strings.TrimSpace("launch " + a.Program + " " + strings.Join(a.Args, " "))
	case "attach":
		return fmt.Sprintf("attach %d", a.Port)
	case "breakpoints":
		return "breakpoints " + a.File
	case "evaluate":
		return "evaluate " + a.Expression
	}
	return a.Operation
}

func title(a args) string {
	op := strings.ReplaceAll(a.Operation, "_", " ")
	switch a.Operation {
	case "launch":
		return strings.TrimSpace("Debug " + a.Program + " " + strings.Join(a.Args, " "))
	case "attach":
		return fmt.Sprintf("Debug: attach to port %d", a.Port)
	case "breakpoints":
		if len(a.Lines) == 0 {
			return "Debug: clear breakpoints of " + a.File
		}
		return fmt.Sprintf("Debug: breakpoints %s:%s", a.File, joinInts(a.Lines))
	case "evaluate":
		return "Debug: evaluate " + a.Expression
	case "variables":
		return fmt.Sprintf("Debug: variables of %d", a.Reference)
	case "scopes":
		return fmt.Sprintf("Debug: scopes of frame %d", a.FrameID)
	}
	return "Debug: " + op
}

func joinInts(ns []int) string {
	s := make([]string, len(ns))
	for i, n := range ns {
		s[i] = fmt.Sprint(n)
	}
	return strings.Join(s, ",")
}

func check(a args) string {
	switch a.Operation {
	case "launch":
		if strings.TrimSpace(a.Program) == "" {
			return `debug launch needs the "program" to run (a Go package folder such as ".", a .py script, a built executable).`
		}
	case "attach":
		if a.Port <= 0 || a.Port > 65535 {
			return `debug attach needs the "port" of a debug server on this machine.`
		}
	case "breakpoints":
		if strings.TrimSpace(a.File) == "" {
			return `debug breakpoints needs the source "file" (and "lines"; none clears the file).`
		}
		for _, l := range a.Lines {
			if l < 1 {
				return fmt.Sprintf("debug breakpoints: line %d is not a 1-based line.", l)
			}
		}
	case "scopes":
		if a.FrameID == 0 {
			return `debug scopes needs a "frame_id" from stack.`
		}
	case "variables":
		if a.Reference <= 0 {
			return `debug variables needs a "reference" from scopes or from a structured variable.`
		}
	case "evaluate":
		if strings.TrimSpace(a.Expression) == "" {
			return `debug evaluate needs an "expression".`
		}
	}
	return ""
}

func (d *Debugger) run(ctx context.Context, env tool.Env, a args) tool.Result {
	switch a.Operation {
	case "adapters":
		return tool.Result{Text: d.adapters(ctx, env.Cwd)}
	case "breakpoints":
		return d.setBreakpoints(ctx, env, a)
	case "launch", "attach":
		return d.start(ctx, env, a)
	case "status":
		return d.status(env)
	}
	s, res, ok := d.current(env)
	if !ok {
		return res
	}
	rctx, cancel := context.WithTimeout(ctx, requestTimeout)
	defer cancel()
	switch a.Operation {
	case "continue", "step_over", "step_in", "step_out":
		return d.resume(ctx, env, s, a)
	case "pause":
		sn, err := s.Pause(ctx, d.thread(s, a.ThreadID), d.o.Wait)
		if err != nil {
			return d.fail(s, "pause", err)
		}
		return d.describe(rctx, env, s, sn, "")
	case "threads":
		return d.threads(rctx, s)
	case "stack":
		return d.stack(rctx, env, s, a)
	case "scopes":
		return d.scopes(rctx, s, a)
	case "variables":
		return d.variables(rctx, s, a)
	case "evaluate":
		return d.evaluate(rctx, s, a)
	case "output":
		return d.output(s)
	case "terminate":
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
	return tool.Fail(fmt.Sprintf("debug knows no operation %q; it knows adapters, status, breakpoints, launch, attach, continue, pause, step_over, step_in, step_out, threads, stack, scopes, variables, evaluate, output and terminate.", a.Operation))
}

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

func (d *Debugger) adapters(ctx context.Context, cwd string) string {
	var b strings.Builder
	for i := range d.o.Specs {
		s := &d.o.Specs[i]
		u := dap.Check(ctx, s, cwd, d.python(cwd), d.o.Policy)
		if u.Why != "" {
			fmt.Fprintf(&b, "%s: not usable — %s.\n", s.ID, u.Why)
			continue
		}
		fmt.Fprintf(&b, "%s: usable (%s)", s.ID, strings.Join(u.Command, " "))
		if u.Root != "" {
			fmt.Fprintf(&b, "; project at %s", rel(cwd, u.Root))
		} else if len(s.Markers) > 0 {
			fmt.Fprintf(&b, "; no %s at or above here (a program named to launch still runs)", strings.Join(s.Markers, ", "))
		}
		b.WriteString(".\n")
	}
	return strings.TrimSpace(b.String())
}

func (d *Debugger) python(cwd string) string {
	if d.o.Python != "" {
		return d.o.Python
	}
	return dap.Python(cwd)
}

func (d *Debugger) spec(id string) *dap.Spec {
	for i := range d.o.Specs {
		if d.o.Specs[i].ID == id {
			return &d.o.Specs[i]
		}
	}
	return nil
}

func (d *Debugger) ids() string {
	ids := make([]string, len(d.o.Specs))
	for i, s := range d.o.Specs {
		ids[i] = s.ID
	}
	return strings.Join(ids, ", ")
}

func (d *Debugger) setBreakpoints(ctx context.Context, env tool.Env, a args) tool.Result {
	file := env.Abs(a.File)
	data, err := os.ReadFile(file)
	if err != nil {
		if errors.Is(err, os.ErrNotExist) {
			return tool.Fail(fmt.Sprintf("%s does not exist.", a.File))
		}
		return tool.Fail(fmt.Sprintf("%s cannot be read: %v.", a.File, err))
	}
	n := strings.Count(string(data), "\n")
	if len(data) > 0 && data[len(data)-1] != '\n' {
		n++
	}
	lines := slices.Clone(a.Lines)
	slices.Sort(lines)
	lines = slices.Compact(lines)
	for _, l := range lines {
		if l > n {
			return tool.Fail(fmt.Sprintf("Line %d is past the end of %s, which has %d lines.", l, a.File, n))
		}
	}
	d.mu.Lock()
	if len(lines) == 0 {
		delete(d.breakpoints, file)
	} else {
		d.breakpoints[file] = lines
	}
	s := d.sess
	d.mu.Unlock()
	shown := rel(env.Cwd, file)
	if s == nil || s.Snapshot().Over() {
		if len(lines) == 0 {
			return tool.Result{Text: fmt.Sprintf("Cleared the breakpoints of %s.", shown), Display: tool.Display{Note: "cleared"}}
		}
		return tool.Result{Text: fmt.Sprintf("Breakpoints at %s:%s, placed when a program is launched.", shown, joinInts(lines)),
			Display: tool.Display{Note: fmt.Sprintf("%d set before launch", len(lines))}}
	}
	rctx, cancel := context.WithTimeout(ctx, requestTimeout)
	defer cancel()
	placed, err := s.SetBreakpoints(rctx, file, lines)
	if err != nil {
		return d.fail(s, "the breakpoints", err)
	}
	if len(lines) == 0 {
		return tool.Result{Text: fmt.Sprintf("Cleared the breakpoints of %s.", shown), Display: tool.Display{Note: "cleared"}}
	}
	var b strings.Builder
	verified := 0
	for i, bp := range placed {
		want := 0
		if i < len(lines) {
			want = lines[i]
		}
		switch {
		case bp.Verified && bp.Line != 0 && bp.Line != want:
			verified++
			fmt.Fprintf(&b, "%s:%d: placed at line %d\n", shown, want, bp.Line)
		case bp.Verified:
			verified++
			fmt.Fprintf(&b, "%s:%d: set\n", shown, want)
		default:
			msg := bp.Message
			if msg == "" {
				msg = "the adapter could not place it (no code on that line?)"
			}
			fmt.Fprintf(&b, "%s:%d: not verified — %s\n", shown, want, tool.OneLine(msg, 200))
		}
	}
	return tool.Result{Text: strings.TrimSpace(b.String()), Display: tool.Display{Note: fmt.Sprintf("%d of %d verified", verified, len(lines))}}
}

func (d *Debugger) start(ctx context.Context, env tool.Env, a args) tool.Result {
	d.mu.Lock()
	if s := d.sess; s != nil {
		if !s.Snapshot().Over() {
			d.mu.Unlock()
			return tool.Fail(fmt.Sprintf("A %s is running; terminate it before you %s another.", describeSession(env, s), a.Operation))
		}
		d.takeLocked()
		go s.Close()
	}
	d.expired = ""
	bps := make(map[string][]int, len(d.breakpoints))
	for f, ls := range d.breakpoints {
		bps[f] = slices.Clone(ls)
	}
	d.mu.Unlock()

	var spec *dap.Spec
	if a.Adapter != "" {
		if spec = d.spec(a.Adapter); spec == nil {
			return tool.Fail(fmt.Sprintf("debug knows no adapter %q; it knows %s.", a.Adapter, d.ids()))
		}
	}
	program := ""
	if a.Operation == "launch" {
		program = env.Abs(a.Program)
		if _, err := os.Stat(program); err != nil {
			return tool.Fail(fmt.Sprintf("%s does not exist.", a.Program))
		}
		if spec == nil {
			if spec = dap.ForProgram(d.o.Specs, program); spec == nil {
				return tool.Fail(fmt.Sprintf("No adapter debugs %s: name one in \"adapter\" (%s), or give a Go package folder, a .go or .py file, or a built executable.", a.Program, d.ids()))
			}
		}
	} else if spec == nil {
		var found []*dap.Spec
		for i := range d.o.Specs {
			s := &d.o.Specs[i]
			if s.Attach != nil && dap.Check(ctx, s, env.Cwd, d.python(env.Cwd), d.o.Policy).Root != "" {
				found = append(found, s)
			}
		}
		if len(found) != 1 {
			return tool.Fail(fmt.Sprintf("Say which adapter serves port %d in \"adapter\" (delve for dlv --headless, debugpy for python -m debugpy --listen, lldb for a gdb-remote server).", a.Port))
		}
		spec = found[0]
	}
	u := dap.Check(ctx, spec, env.Cwd, d.python(env.Cwd), d.o.Policy)
	if u.Why != "" && !(a.Operation == "attach" && spec.Direct) {
		return tool.Fail(fmt.Sprintf("The %s adapter cannot start: %s.", spec.ID, u.Why))
	}
	o := dap.Options{Dir: env.Cwd, Policy: d.o.Policy, Start: d.o.Start}
	var s *dap.Session
	var err error
	if a.Operation == "launch" {
		s, err = dap.Launch(ctx, u, program, a.Args, bps, o)
	} else {
		s, err = dap.Attach(ctx, u, a.Port, bps, o)
	}
	if err != nil {
		if ctx.Err() != nil {
			return tool.Fail("debug " + a.Operation + " was cancelled; nothing was left running.")
		}
		return tool.Fail(fmt.Sprintf("debug %s failed: %s.", a.Operation, strings.TrimSuffix(err.Error(), ".")))
	}
	d.mu.Lock()
	if d.sess != nil { // another call started one meanwhile (calls of one conversation do not overlap)
		d.mu.Unlock()
		s.Close()
		return tool.Fail("Another debug session started meanwhile; terminate it first.")
	}
	d.sess, d.cwd = s, env.Cwd
	d.timer = time.AfterFunc(d.o.TTL, func() { d.expire(s) })
	d.mu.Unlock()
	sn, err := s.Wait(ctx, 0, d.o.Wait)
	if err != nil {
		return tool.Fail("debug " + a.Operation + " was cancelled while the program ran; the session is still there (status, pause or terminate).")
	}
	rctx, cancel := context.WithTimeout(ctx, requestTimeout)
	defer cancel()
	verb := fmt.Sprintf("Launched %s under %s", rel(env.Cwd, program), spec.ID)
	if a.Operation == "attach" {
		verb = fmt.Sprintf("Attached to port %d with %s", a.Port, spec.ID)
	}
	if len(bps) > 0 {
		verb += " with breakpoints at " + breakpointList(env.Cwd, bps)
	}
	return d.describe(rctx, env, s, sn, verb)
}

func breakpointList(cwd string, bps map[string][]int) string {
	var parts []string
	for _, f := range slices.Sorted(maps.Keys(bps)) {
		parts = append(parts, rel(cwd, f)+":"+joinInts(bps[f]))
	}
	return strings.Join(parts, ", ")
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

// describeSession names a session: its adapter and what it debugs.
func describeSession(env tool.Env, s *dap.Session) string {
	if s.Program != "" {
		return fmt.Sprintf("%s session of %s", s.Spec.ID, rel(env.Cwd, s.Program))
	}
	return fmt.Sprintf("%s session attached to port %d", s.Spec.ID, s.Port)
}

func (d *Debugger) resume(ctx context.Context, env tool.Env, s *dap.Session, a args) tool.Result {
	sn := s.Snapshot()
	if sn.Over() {
		return d.describe(ctx, env, s, sn, "The program is no longer running")
	}
	command := map[string]string{"continue": "continue", "step_over": "next", "step_in": "stepIn", "step_out": "stepOut"}[a.Operation]
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

func (d *Debugger) threads(ctx context.Context, s *dap.Session) tool.Result {
	ts, err := s.Threads(ctx)
	if err != nil {
		return d.fail(s, "threads", err)
	}
	sn := s.Snapshot()
	var b strings.Builder
	for i, t := range ts {
		if i == maxThreads {
			fmt.Fprintf(&b, "… %d more threads\n", len(ts)-maxThreads)
			break
		}
		mark := ""
		if sn.State == dap.Stopped && t.Id == sn.ThreadID {
			mark = " (stopped here)"
		}
		fmt.Fprintf(&b, "%d %s%s\n", t.Id, tool.OneLine(t.Name, 120), mark)
	}
	return tool.Result{Text: strings.TrimSpace(b.String()), Display: tool.Display{Note: fmt.Sprintf("%d threads", len(ts))}}
}

func (d *Debugger) stack(ctx context.Context, env tool.Env, s *dap.Session, a args) tool.Result {
	sn := s.Snapshot()
	if sn.State != dap.Stopped {
		return tool.Fail(fmt.Sprintf("The program is %s; stack needs it stopped (pause it first).", sn.State))
	}
	frames, total, err := s.Stack(ctx, d.thread(s, a.ThreadID), maxFrames)
	if err != nil {
		return d.fail(s, "the stack", err)
	}
	var b strings.Builder
	for i, f := range frames {
		if i == maxFrames {
			break
		}
		path := ""
		if f.Source != nil {
			path = f.Source.Path
		}
		where := "(no source)"
		if path != "" {
			where = fmt.Sprintf("%s:%d", rel(env.Cwd, path), f.Line)
		}
		fmt.Fprintf(&b, "#%d %s %s [frame_id %d]\n", i, f.Name, where, f.Id)
	}
	if total > len(frames) || len(frames) > maxFrames {
		fmt.Fprintf(&b, "… %d frames in all; the first %d are shown\n", max(total, len(frames)), min(len(frames), maxFrames))
	}
	return tool.Result{Text: strings.TrimSpace(b.String()), Display: tool.Display{Note: fmt.Sprintf("%d frames", len(frames))}}
}

func (d *Debugger) scopes(ctx context.Context, s *dap.Session, a args) tool.Result {
	scopes, err := s.Scopes(ctx, a.FrameID)
	if err != nil {
		return d.fail(s, fmt.Sprintf("the scopes of frame %d", a.FrameID), err)
	}
	var b strings.Builder
	for _, sc := range scopes {
		extra := ""
		if sc.Expensive {
			extra = ", expensive"
		}
		fmt.Fprintf(&b, "%s [reference %d%s]\n", sc.Name, sc.VariablesReference, extra)
	}
	if b.Len() == 0 {
		return tool.Result{Text: fmt.Sprintf("Frame %d has no scopes.", a.FrameID)}
	}
	return tool.Result{Text: strings.TrimSpace(b.String()), Display: tool.Display{Note: fmt.Sprintf("%d scopes", len(scopes))}}
}

func (d *Debugger) variables(ctx context.Context, s *dap.Session, a args) tool.Result {
	vars, err := s.Variables(ctx, a.Reference, maxChildren+1)
	if err != nil {
		return d.fail(s, fmt.Sprintf("the variables of reference %d", a.Reference), err)
	}
	var b strings.Builder
	for i, v := range vars {
		if i == maxChildren {
			fmt.Fprintf(&b, "… more children; the first %d are shown\n", maxChildren)
			break
		}
		b.WriteString(variableLine(v.Name, v.Value, v.Type, v.VariablesReference))
	}
	if b.Len() == 0 {
		return tool.Result{Text: fmt.Sprintf("Reference %d has no children.", a.Reference)}
	}
	return tool.Result{Text: strings.TrimSpace(b.String()), Display: tool.Display{Note: fmt.Sprintf("%d variables", min(len(vars), maxChildren))}}
}

func variableLine(name, value, typ string, ref int) string {
	line := name + " = " + capValue(value)
	var extra []string
	if typ != "" {
		extra = append(extra, tool.OneLine(typ, 120))
	}
	if ref > 0 {
		extra = append(extra, fmt.Sprintf("reference %d", ref))
	}
	if len(extra) > 0 {
		line += " (" + strings.Join(extra, ", ") + ")"
	}
	return line + "\n"
}

// capValue is a value on one line, at most maxValue characters.
func capValue(v string) string {
	v = strings.ReplaceAll(strings.ReplaceAll(v, "\r", `\r`), "\n", `\n`)
	if r := []rune(v); len(r) > maxValue {
		return string(r[:maxValue]) + fmt.Sprintf("… (%d characters)", len(r))
	}
	return v
}

func (d *Debugger) evaluate(ctx context.Context, s *dap.Session, a args) tool.Result {
	frame := a.FrameID
	if frame == 0 {
		if sn := s.Snapshot(); sn.State == dap.Stopped {
			if frames, _, err := s.Stack(ctx, d.thread(s, 0), 1); err == nil && len(frames) > 0 {
				frame = frames[0].Id
			}
		}
	}
	r, err := s.Evaluate(ctx, a.Expression, frame)
	if err != nil {
		return d.fail(s, "the expression", err)
	}
	text := strings.TrimSuffix(variableLine(a.Expression, r.Result, r.Type, r.VariablesReference), "\n")
	return tool.Result{Text: text, Display: tool.Display{Note: "= " + tool.OneLine(capValue(r.Result), 120)}}
}

func (d *Debugger) output(s *dap.Session) tool.Result {
	out, cut := s.Output()
	if out == "" {
		return tool.Result{Text: "No output since the last call." + messagesSection(s), Display: tool.Display{Note: "no output"}}
	}
	note := fmt.Sprintf("%d bytes", len(out))
	if cut > 0 {
		note += fmt.Sprintf(" (%d cut)", cut)
	}
	// The program's output, like a command's: the loop bounds it (tool.Fit), saves it
	// whole when it cuts it, and the model reads a command's short preview.
	return tool.Result{Text: out + messagesSection(s), Display: tool.Display{Note: note}, Preview: tool.ShellPreview}
}

// rel is p relative to cwd when under it.
func rel(cwd, p string) string {
	if p == "" {
		return p
	}
	if r, err := filepath.Rel(cwd, p); err == nil && !strings.HasPrefix(r, "..") {
		if r == "." {
			return "."
		}
		return filepath.ToSlash(r)
	}
	return p
}
