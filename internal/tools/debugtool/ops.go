package debugtool

import (
	"context"
	"fmt"
	"strings"

	"github.com/gantry-dev/gantry/internal/dap"
	"github.com/gantry-dev/gantry/internal/tool"
)

type args struct {
	Operation  string   `json:"operation" jsonschema_description:"What to do."`
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

// ops is the debug tool's table of operations. What only reads the adapters, the
// breakpoints or a stopped program is read, and not asked for in default mode; what
// starts, resumes, stops or changes the program, or runs an expression in it (which
// may call anything), is exec.
func (d *Debugger) ops() *tool.Ops[args] {
	read, exec := tool.LevelRead, tool.LevelExec
	return &tool.Ops[args]{Arg: "operation", List: []tool.Op[args]{
		{Name: "adapters", Level: read, Kind: tool.KindRead,
			Run: func(ctx context.Context, env tool.Env, _ args) tool.Result {
				return tool.Result{Text: d.adapters(ctx, env.Cwd)}
			}},
		{Name: "status", Level: read, Kind: tool.KindRead,
			Run: func(_ context.Context, env tool.Env, _ args) tool.Result { return d.status(env) }},
		{Name: "breakpoints", Level: exec, Check: checkBreakpoints,
			Principal: func(a args) string { return "breakpoints " + a.File },
			Paths:     func(env tool.Env, a args) []string { return []string{env.Abs(a.File)} },
			Title: func(_ tool.Env, a args, _ []string) string {
				if len(a.Lines) == 0 {
					return "Debug: clear breakpoints of " + a.File
				}
				return fmt.Sprintf("Debug: breakpoints %s:%s", a.File, joinInts(a.Lines))
			},
			Run: d.setBreakpoints},
		{Name: "launch", Level: exec,
			Check: func(a args) string {
				if strings.TrimSpace(a.Program) == "" {
					return `debug launch needs the "program" to run (a Go package folder such as ".", a .py script, a built executable).`
				}
				return ""
			},
			Principal: func(a args) string {
				return strings.TrimSpace("launch " + a.Program + " " + strings.Join(a.Args, " "))
			},
			Paths: func(env tool.Env, a args) []string { return []string{env.Abs(a.Program)} },
			Title: func(_ tool.Env, a args, _ []string) string {
				return strings.TrimSpace("Debug " + a.Program + " " + strings.Join(a.Args, " "))
			},
			Run: d.start},
		{Name: "attach", Level: exec,
			Check: func(a args) string {
				if a.Port <= 0 || a.Port > 65535 {
					return `debug attach needs the "port" of a debug server on this machine.`
				}
				return ""
			},
			Principal: func(a args) string { return fmt.Sprintf("attach %d", a.Port) },
			Title:     func(_ tool.Env, a args, _ []string) string { return fmt.Sprintf("Debug: attach to port %d", a.Port) },
			Run:       d.start},
		{Name: "continue", Level: exec, Run: d.inSession(d.resume("continue"))},
		{Name: "pause", Level: exec, Run: d.inSession(d.pause)},
		{Name: "step_over", Level: exec, Run: d.inSession(d.resume("next"))},
		{Name: "step_in", Level: exec, Run: d.inSession(d.resume("stepIn"))},
		{Name: "step_out", Level: exec, Run: d.inSession(d.resume("stepOut"))},
		{Name: "threads", Level: read, Kind: tool.KindRead, Run: d.query(d.threads)},
		{Name: "stack", Level: read, Kind: tool.KindRead, Run: d.query(d.stack)},
		{Name: "scopes", Level: read, Kind: tool.KindRead,
			Check: func(a args) string {
				if a.FrameID == 0 {
					return `debug scopes needs a "frame_id" from stack.`
				}
				return ""
			},
			Title: func(_ tool.Env, a args, _ []string) string {
				return fmt.Sprintf("Debug: scopes of frame %d", a.FrameID)
			},
			Run: d.query(d.scopes)},
		{Name: "variables", Level: read, Kind: tool.KindRead,
			Check: func(a args) string {
				if a.Reference <= 0 {
					return `debug variables needs a "reference" from scopes or from a structured variable.`
				}
				return ""
			},
			Title: func(_ tool.Env, a args, _ []string) string { return fmt.Sprintf("Debug: variables of %d", a.Reference) },
			Run:   d.query(d.variables)},
		{Name: "evaluate", Level: exec,
			Check: func(a args) string {
				if strings.TrimSpace(a.Expression) == "" {
					return `debug evaluate needs an "expression".`
				}
				return ""
			},
			Principal: func(a args) string { return "evaluate " + a.Expression },
			Title:     func(_ tool.Env, a args, _ []string) string { return "Debug: evaluate " + a.Expression },
			Run:       d.query(d.evaluate)},
		{Name: "output", Level: read, Kind: tool.KindRead,
			Run: d.inSession(d.output)},
		{Name: "terminate", Level: exec, Run: d.inSession(d.terminate)},
	}}
}

// sessionOp is an operation on the running session.
type sessionOp func(ctx context.Context, env tool.Env, s *dap.Session, a args) tool.Result

// inSession runs op on the running session, or says there is none (or that its
// adapter crashed).
func (d *Debugger) inSession(op sessionOp) func(ctx context.Context, env tool.Env, a args) tool.Result {
	return func(ctx context.Context, env tool.Env, a args) tool.Result {
		s, res, ok := d.current(env)
		if !ok {
			return res
		}
		return op(ctx, env, s, a)
	}
}

// query runs op on the running session, each request to the adapter bounded by
// requestTimeout.
func (d *Debugger) query(op sessionOp) func(ctx context.Context, env tool.Env, a args) tool.Result {
	return d.inSession(func(ctx context.Context, env tool.Env, s *dap.Session, a args) tool.Result {
		rctx, cancel := context.WithTimeout(ctx, requestTimeout)
		defer cancel()
		return op(rctx, env, s, a)
	})
}

// title is a call's line when its operation has none of its own: "Debug: step over".
func title(a args) string {
	return "Debug: " + strings.ReplaceAll(a.Operation, "_", " ")
}

func checkBreakpoints(a args) string {
	if strings.TrimSpace(a.File) == "" {
		return `debug breakpoints needs the source "file" (and "lines"; none clears the file).`
	}
	for _, l := range a.Lines {
		if l < 1 {
			return fmt.Sprintf("debug breakpoints: line %d is not a 1-based line.", l)
		}
	}
	return ""
}

func joinInts(ns []int) string {
	s := make([]string, len(ns))
	for i, n := range ns {
		s[i] = fmt.Sprint(n)
	}
	return strings.Join(s, ",")
}
