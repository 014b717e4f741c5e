package shell

import (
	"os/exec"
	"time"

	"github.com/gantry-dev/gantry/internal/contain"
	"github.com/gantry-dev/gantry/internal/procgroup"
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

// newCommand prepares `bash -c script` in dir with extraEnv added, contained: the
// first process of a PID namespace of its own, so that nothing it starts outlives it,
// in a process group of its own either way (see package contain).
func newCommand(script, dir string) *exec.Cmd { return contain.Command(script, dir, extraEnv) }

// killGroup stops the whole group pgid (SIGTERM, then SIGKILL after termGrace).
func killGroup(pgid int) { procgroup.Kill(pgid, termGrace) }
