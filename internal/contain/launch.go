package contain

import (
	"context"
	"os"
	"slices"
	"strings"
)

// Policy is a session's rules for every process it starts: the one door. Every child
// process of gantry — a bash command and its background tasks, a !command, a hook, a
// debug adapter and the program it launches, an eval kernel, a language server, an
// MCP stdio server, a formatter, the checkpoints' git — is started by Policy.Process,
// so that each runs under the same deny rules (the exec supervisor's Judge), in the
// same sandbox, with the same environment and folder. Nothing else in gantry calls
// exec.Command or os.StartProcess (a test says so).
//
// A nil *Policy is gantry's own, outside any session (doctor's probes, gantry's own
// tools asking `go env`): no judge, no sandbox, gantry's environment — still a PID
// namespace of its own, so that nothing outlives it.
type Policy struct {
	// Judge is asked about every program a process and its descendants execute (nil:
	// no deny rule names a program).
	Judge Judge
	// Sandbox gives the sandbox of a process started now (nil, or nil returned: none).
	Sandbox func() *Sandbox
	// Env gives the session's environment, added over gantry's own (nil: none): the
	// env of the project's Claude settings, what SessionStart hooks exported.
	Env func() []string
	// Dir is the session's folder: a process's working folder unless its Spec says.
	Dir string
	// ID names the rules, for what is shared between sessions: two policies with the
	// same ID are the same rules (a language server started under one serves the
	// other); the App makes it from its deny rules, sandbox and environment.
	ID string
}

// Spec is one process to start under a Policy.
type Spec struct {
	// Script runs as `bash -c Script`; Argv, when set instead, is the program and its
	// arguments (the program looked up on PATH).
	Script string
	Argv   []string
	// Dir is the working folder ("": the policy's); Env is added after the session's.
	Dir string
	Env []string
	// ExtraFiles are the process's descriptors 3, 4, … (a protocol's pipes).
	ExtraFiles []*os.File
	// OwnProc gives it a /proc of its own PID namespace (a debugger needs one).
	OwnProc bool
	// Loose runs it in a session and process group of its own only, with the
	// session's environment and folder but no namespace, supervisor or sandbox: the
	// person's own hooks from their settings files, in a folder they trusted, which
	// may leave a process running on purpose (see Options.Loose). The only way out of
	// the policy, and it is named.
	Loose bool
	// Widen is what this process needs beyond the policy's sandbox, by name (nil:
	// nothing); see Widening.
	Widen *Widening
	// DropEnv names variables of gantry's environment the process must not inherit
	// (git's own, for the checkpoints' git).
	DropEnv func(name string) bool
}

// Widening is a named, documented widening of a policy's sandbox for processes that
// need more than a command does: a language server's caches, an MCP server's network,
// the checkpoints' shadow repository. The deny rules, the read masks and the hidden
// programs stay.
type Widening struct {
	// Why names it, for docs and errors ("language server caches").
	Why string
	// Writable are folders written besides the sandbox's own.
	Writable []string
	// Network turns the network on for this process.
	Network bool
	// OutsideSandbox runs the process with no sandbox at all, still under the judge
	// (and so in a PID namespace, where the supervisor runs; with no judge, in a
	// process group of its own, killed when it ends): only for gantry's own fixed
	// programs that run nothing of the project's, start nothing that outlives them
	// and read no file the session may not (the checkpoints' git, with hooks,
	// filters, gc and the person's configuration off and the read-denied paths
	// excluded), where a sandbox, or a helper, per process would cost a turn hundreds
	// of milliseconds.
	OutsideSandbox bool
}

// Process prepares s under the policy: contained (a PID namespace of its own where
// one can be made), supervised by the policy's Judge, in its sandbox (widened by
// s.Widen), with gantry's environment plus the session's plus s.Env. Set Cmd's
// standard streams, then Start it.
func (pol *Policy) Process(s Spec) *Process {
	o := Options{Dir: s.Dir, Env: s.Env, ExtraFiles: s.ExtraFiles, OwnProc: s.OwnProc, Loose: s.Loose, Argv: s.Argv, DropEnv: s.DropEnv}
	if pol != nil {
		if o.Dir == "" {
			o.Dir = pol.Dir
		}
		if pol.Env != nil {
			o.Env = append(pol.Env(), s.Env...)
		}
		if !s.Loose {
			o.Judge = pol.Judge
			if pol.Sandbox != nil {
				o.Sandbox = pol.Sandbox()
			}
		}
	}
	if s.Widen != nil && s.Widen.OutsideSandbox {
		o.Sandbox = nil
		o.Plain = o.Judge == nil
	}
	if o.Sandbox != nil {
		sb := *o.Sandbox
		if w := s.Widen; w != nil {
			sb.Writable = append(slices.Clone(sb.Writable), w.Writable...)
			sb.Network = sb.Network || w.Network
		}
		o.Sandbox = &sb
		if o.Judge == nil {
			// A sandboxed process is always supervised: with no deny rule the judge
			// lets everything run, and the watch still holds (an exec it cannot read
			// is refused).
			o.Judge = allowAll
		}
	}
	return New(s.Script, o)
}

// Environ is the environment a process of the policy gets, gantry's own plus the
// session's (later duplicates win), for what reads it without starting a process.
func (pol *Policy) Environ() []string {
	env := os.Environ()
	if pol != nil && pol.Env != nil {
		env = append(env, pol.Env()...)
	}
	return env
}

// Getenv is a variable of Environ (the last one set wins).
func (pol *Policy) Getenv(name string) string {
	env := pol.Environ()
	for i := len(env) - 1; i >= 0; i-- {
		if k, v, ok := strings.Cut(env[i], "="); ok && k == name {
			return v
		}
	}
	return ""
}

// allowAll is the judge of a sandbox with no deny rule on programs.
func allowAll(Exec) Refusal { return Refusal{} }

// Output runs s to its end under the policy and returns its standard output, as
// exec.Cmd.Output does (a failed exit is an *exec.ExitError carrying what it wrote
// to standard error).
func (pol *Policy) Output(s Spec) ([]byte, error) {
	return pol.Process(s).Output(context.Background())
}

// OutputContext is Output, stopped when ctx ends first.
func (pol *Policy) OutputContext(ctx context.Context, s Spec) ([]byte, error) {
	return pol.Process(s).Output(ctx)
}
