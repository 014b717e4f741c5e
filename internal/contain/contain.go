// Package contain runs a shell command so that nothing it starts outlives it: the
// command runs under a small init of gantry's own — gantry's binary started again in a
// helper mode — as the first process of a PID namespace of its own (in a user
// namespace of its own when gantry is not root). When the command ends, times out or
// is cancelled, or gantry dies (even by kill -9: the helper watches a pipe only gantry
// holds open), the init exits and the kernel kills every process of the namespace:
// setsid, nohup and double forks included.
//
// Where namespaces cannot be made (a kernel or a container that forbids them), Command
// falls back to a process group of its own (package procgroup), and Status says so.
package contain

import (
	"fmt"
	"os"
	"os/exec"
	"sync"
	"syscall"

	"github.com/gantry-dev/gantry/internal/procgroup"
)

// helperArg, as the first argument, runs the binary as the namespace's init instead
// of as itself (see init).
const helperArg = "__gantry_contain"

// The file descriptors the helper gets, after stdin, stdout and stderr.
const (
	lifelineFD = 3 // read end of a pipe whose write end only gantry holds
)

func init() {
	// Any binary that links this package can be the helper: gantry, and the test
	// binaries of the packages that run commands through it.
	if len(os.Args) > 1 && os.Args[1] == helperArg {
		os.Exit(helperMain(os.Args[2:]))
	}
}

// Mode says how commands are contained here.
type Mode int

const (
	// ModeGroup: a process group of its own (no namespaces here).
	ModeGroup Mode = iota
	// ModePIDNamespace: the first process of a PID namespace (gantry is root).
	ModePIDNamespace
	// ModeUserPIDNamespace: the same, in a user namespace of its own.
	ModeUserPIDNamespace
)

func (m Mode) String() string {
	switch m {
	case ModePIDNamespace:
		return "a PID namespace per command"
	case ModeUserPIDNamespace:
		return "a user and PID namespace per command"
	}
	return "a process group per command (no namespaces)"
}

var (
	probeOnce sync.Once
	mode      Mode
	why       string // why there are no namespaces, for ModeGroup
	lifeline  *os.File
	// lineW is the lifeline's write end: never written, only kept open (and reachable,
	// so no finalizer closes it) for the process's lifetime.
	//lint:ignore U1000 held, not used: its closing at exit is the signal
	lineW *os.File
)

// Status says how commands are contained here and, when it is by process group only,
// why namespaces could not be made. The first call probes (it starts one helper).
func Status() (Mode, string) {
	probeOnce.Do(probe)
	return mode, why
}

// probe decides the mode: it starts the helper in namespaces once.
func probe() {
	r, w, err := os.Pipe()
	if err != nil {
		why = "no pipe for the lifeline: " + err.Error()
		return
	}
	lifeline, lineW = r, w
	for _, m := range []Mode{ModePIDNamespace, ModeUserPIDNamespace} {
		if m == ModePIDNamespace && os.Geteuid() != 0 {
			continue
		}
		cmd := helper(m, "probe")
		out, err := cmd.CombinedOutput()
		if err == nil {
			mode = m
			return
		}
		why = fmt.Sprintf("%v", err)
		if len(out) > 0 {
			why += ": " + string(out)
		}
	}
	mode = ModeGroup
}

// helper is the command that starts the helper in mode m with args.
func helper(m Mode, args ...string) *exec.Cmd {
	cmd := exec.Command("/proc/self/exe", append([]string{helperArg}, args...)...)
	attr := &syscall.SysProcAttr{Setsid: true, Cloneflags: syscall.CLONE_NEWPID}
	if m == ModeUserPIDNamespace {
		attr.Cloneflags |= syscall.CLONE_NEWUSER
		attr.UidMappings = []syscall.SysProcIDMap{{ContainerID: os.Geteuid(), HostID: os.Geteuid(), Size: 1}}
		attr.GidMappings = []syscall.SysProcIDMap{{ContainerID: os.Getegid(), HostID: os.Getegid(), Size: 1}}
	}
	cmd.SysProcAttr = attr
	cmd.ExtraFiles = []*os.File{lifeline}
	return cmd
}

// Command prepares `bash -c script` in dir with env added to the inherited
// environment (later duplicates win), contained as Status says: it leads a session and
// process group of its own either way, with stdin from /dev/null unless the caller
// sets one, so procgroup's Wait and Kill apply to it.
func Command(script, dir string, env []string) *exec.Cmd {
	m, _ := Status()
	if m == ModeGroup {
		return procgroup.Command(script, dir, env)
	}
	cmd := helper(m, "--", "bash", "-c", script)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), env...)
	return cmd
}
