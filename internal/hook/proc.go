package hook

import (
	"time"

	"github.com/gantry-dev/gantry/internal/contain"
)

// Timings of process handling.
const (
	// termGrace is how long a hook's group has to exit after SIGTERM before SIGKILL.
	termGrace = 500 * time.Millisecond
	// drainGrace bounds the wait for the output pipes to close once the hook's main
	// process has exited or its group was killed (a grandchild may hold them open).
	drainGrace = 250 * time.Millisecond
)

// newCommand prepares `bash -c script` in dir for a hook from source, with env added.
// A hook the model registered (register_hook) is contained like a bash call: the init of
// a PID namespace of its own, so nothing it starts outlives it (see package contain). A
// hook from a settings file is the user's own program and runs as Claude Code runs it,
// in a session and process group of its own. When it exits its group is hung up
// (SIGHUP): what it detached on purpose — a child that left the group (setsid) or that
// ignores or catches SIGHUP (nohup) — lives on, the rest dies; at its timeout, or when
// the call is cancelled, the whole group is killed (SIGTERM, then SIGKILL).
// The model's hook runs under the session's whole policy: the deny rules of bash, the
// sandbox, like a bash command.
func newCommand(source, script, dir string, env []string, pol *contain.Policy) *contain.Process {
	return pol.Process(contain.Spec{Script: script, Dir: dir, Env: env, Loose: source != SourceSession})
}
