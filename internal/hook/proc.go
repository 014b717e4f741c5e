package hook

import (
	"os/exec"
	"time"

	"github.com/gantry-dev/gantry/internal/procgroup"
)

// Timings of process handling.
const (
	// termGrace is how long a hook's group has to exit after SIGTERM before SIGKILL.
	termGrace = 500 * time.Millisecond
	// drainGrace bounds the wait for the output pipes to close once the hook's main
	// process has exited or its group was killed (a grandchild may hold them open).
	drainGrace = 250 * time.Millisecond
)

// newCommand prepares `bash -c script` in dir, in a process group of its own (see
// procgroup.Command), with env added.
func newCommand(script, dir string, env []string) *exec.Cmd {
	return procgroup.Command(script, dir, env)
}
