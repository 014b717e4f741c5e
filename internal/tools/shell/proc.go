package shell

import (
	"fmt"
	"slices"
	"time"

	"github.com/gantry-dev/gantry/internal/contain"
	"github.com/gantry-dev/gantry/internal/tool"
)

// Timings of process handling.
const (
	// termGrace is how long a group has to exit after SIGTERM before SIGKILL.
	termGrace = 2 * time.Second
	// drainGrace bounds the wait for the output pipe to close once the main process has
	// exited or the group was killed (a grandchild may hold it open).
	drainGrace = 250 * time.Millisecond
)

// extraEnv is added to the inherited environment of every command: the command knows it
// runs under gantry, and nothing waits on a pager or a terminal prompt.
var extraEnv = []string{
	"GANTRY=1",
	"PAGER=cat",
	"GIT_PAGER=cat",
	"MANPAGER=cat",
	"TERM=dumb",
	"GIT_TERMINAL_PROMPT=0",
}

// credentials are the variables of gantry's own environment that hold its keys to the
// model and its MCP server: a command the model runs does not inherit them, so that a
// prompt injected through a file or a pull request cannot have a command print them.
// The session's environment (Options.Policy's Env: Claude Code settings' env, what a
// SessionStart hook exports) still sets them where a person wants commands to have one.
var credentials = []string{
	"ANTHROPIC_API_KEY",
	"ANTHROPIC_AUTH_TOKEN",
	"OPENAI_API_KEY",
	"GANTRY_MCP_TOKEN",
}

// isCredential reports whether name is one of credentials.
func isCredential(name string) bool { return slices.Contains(credentials, name) }

// newProcess prepares `bash -c script` in dir with the session's environment and
// extraEnv added, contained: the first process of a PID namespace of its own, so that
// nothing it starts outlives it, in a process group of its own either way, every
// program it runs checked by judge when there is one (see package contain).
func newProcess(script, dir string, g guard) *contain.Process {
	pinned := &contain.Policy{Judge: g.judge, Sandbox: func() *contain.Sandbox { return g.sandbox }}
	return pinned.Process(contain.Spec{Script: script, Dir: dir, Env: append(append([]string(nil), g.env...), extraEnv...), DropEnv: isCredential})
}

// guard is how a command runs: the exec supervisor's judge and the sandbox (each may
// be nil), and the session's environment (Options.Env).
type guard struct {
	judge   contain.Judge
	sandbox *contain.Sandbox
	env     []string
}

// guardOf is the guard of a call under o's policy, taken once for the call (the
// sandbox depends on the mode of the moment).
func (o Options) guardOf() guard {
	pol := o.Policy
	if pol == nil {
		return guard{}
	}
	g := guard{judge: pol.Judge}
	if pol.Env != nil {
		g.env = pol.Env()
	}
	if pol.Sandbox != nil {
		g.sandbox = pol.Sandbox()
	}
	return g
}

// blockedLines are the lines a result ends with for what the supervisor refused, and
// for a supervisor that could not watch the command.
func blockedLines(p *contain.Process) []string {
	var lines []string
	for _, r := range p.Blocked() {
		lines = append(lines, fmt.Sprintf("[blocked by deny rule %s: %s]", r.Rule, tool.OneLine(r.Command, 200)))
	}
	if f := p.Fault(); f != "" {
		lines = append(lines, "[deny rules were checked by the parser only: "+f+"]")
	}
	if f := p.SandboxFault(); f != "" {
		lines = append(lines, "[the command ran without the sandbox: "+f+"]")
	}
	return lines
}

// blocks are the refusals of p for the result, so that faces can show them.
func blocks(p *contain.Process) []tool.Blocked {
	var out []tool.Blocked
	for _, r := range p.Blocked() {
		out = append(out, tool.Blocked{Rule: r.Rule, Command: r.Command})
	}
	return out
}
