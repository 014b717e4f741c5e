package contain

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"syscall"

	"golang.org/x/sys/unix"

	"github.com/gantry-dev/gantry/internal/contain/nsinit"
)

// helperArg, as the first argument, runs the binary as the namespace's init instead
// of as itself (see package nsinit).
const helperArg = nsinit.Arg

func init() {
	// Any binary that links this package can be the helper: gantry, and the test
	// binaries of the packages that run commands through it. nsinit's own init has
	// run every helper already but a Landlock one, which needs this package.
	if len(os.Args) > 1 && os.Args[1] == helperArg {
		os.Exit(nsinit.Main(os.Args[2:], landlockSelf))
	}
}

var (
	lifeline *os.File
	// lineW is the lifeline's write end: never written, only kept open (and reachable,
	// so no finalizer closes it) for the process's lifetime.
	//lint:ignore U1000 held, not used: its closing at exit is the signal
	lineW *os.File
)

// probe decides the mode: it starts the helper in namespaces once.
func probe() {
	r, w, err := os.Pipe()
	if err != nil {
		why = "no pipe for the lifeline: " + err.Error()
		return
	}
	lifeline, lineW = r, w
	mode = ModeGroup
	for _, m := range []Mode{ModePIDNamespace, ModeUserPIDNamespace} {
		if m == ModePIDNamespace && os.Geteuid() != 0 {
			continue
		}
		out, err := helper(m, nil, "probe").CombinedOutput()
		if err == nil {
			mode, why = m, ""
			break
		}
		why = fmt.Sprintf("%v", err)
		if s := strings.TrimSpace(string(out)); s != "" {
			why += ": " + s
		}
	}
}

// procMismatch is why the supervisor cannot run where /proc is not gantry's own.
const procMismatch = "gantry runs in a PID namespace whose /proc is another's (inside another gantry?), where the supervisor cannot find the processes it stops by their pids"

// probeSupervisor starts a supervised helper that runs /bin/true and says what went
// wrong, if anything.
func probeSupervisor() string {
	if len(filterArches) == 0 {
		return "the exec supervisor is not built for this processor"
	}
	if lifeline == nil {
		return why
	}
	if !procMatches() {
		return procMismatch
	}
	p := New("true", Options{Judge: func(Exec) Refusal { return Refusal{} }})
	if err := p.Start(); err != nil {
		return "the helper did not start: " + err.Error()
	}
	p.Wait(context.Background(), 0, 0, nil)
	if f := p.Fault(); f != "" {
		return f
	}
	if err := p.Cmd.ProcessState; err == nil || !err.Success() {
		return "a supervised command did not run"
	}
	return ""
}

// helper is the command that starts the helper in mode m with flags and args.
func helper(m Mode, flags []string, args ...string) *exec.Cmd {
	cmd := exec.Command("/proc/self/exe", append(append([]string{helperArg}, flags...), args...)...)
	attr := &syscall.SysProcAttr{Setsid: true}
	switch m {
	case ModePIDNamespace:
		attr.Cloneflags = syscall.CLONE_NEWPID
	case ModeUserPIDNamespace:
		attr.Cloneflags = syscall.CLONE_NEWPID | syscall.CLONE_NEWUSER
		attr.UidMappings = []syscall.SysProcIDMap{{ContainerID: os.Geteuid(), HostID: os.Geteuid(), Size: 1}}
		attr.GidMappings = []syscall.SysProcIDMap{{ContainerID: os.Getegid(), HostID: os.Getegid(), Size: 1}}
	}
	cmd.SysProcAttr = attr
	cmd.ExtraFiles = []*os.File{lifeline}
	return cmd
}

// platform is what a process needs on Linux.
type platform struct {
	sock   *os.File // gantry's end of the supervisor's socket
	child  *os.File // the helper's end, closed once it started
	cg     *cgroup
	stopR  *os.File // closed by finish: the supervisor stops
	stopW  *os.File
	served chan struct{} // closed when the supervisor ended
}

// loosened tells whether the command runs without the helper (see command).
func (p *Process) loosened() bool {
	m, _ := Status()
	return p.opts.Loose || (p.opts.Plain || m == ModeGroup) && p.opts.Judge == nil && p.opts.Sandbox == nil
}

// command prepares the helper (or, loose or without namespaces and without a Judge,
// bash itself).
func (p *Process) command(argv []string) *exec.Cmd {
	m, _ := Status()
	if p.loosened() {
		cmd := p.loose(argv)
		if !p.opts.Loose && !p.opts.Plain {
			p.plat.cg = newCgroup(cmd)
		}
		return cmd
	}
	var flags []string
	hm := m // how the helper itself is started
	env := p.environ()
	var sbFlags []string
	if sb := p.opts.Sandbox; sb != nil {
		switch b, _ := SandboxStatus(); b {
		case BackendBubblewrap:
			// bwrap makes the PID namespace itself (and the user one when gantry is
			// not root), with a /proc that matches — inside gantry's own it cannot,
			// since it reads /proc by its own pid — and dies with the helper, its
			// parent, which dies with gantry: the helper stays out of namespaces.
			shellPath := ""
			if len(p.opts.Argv) == 0 {
				shellPath = lastValue(env, "PATH")
			}
			argv = bwrapArgs(sb, p.opts.Dir, argv, shellPath)
			hm = ModeGroup
			// The helper reaps bubblewrap's init too, which outlives bubblewrap
			// while its namespaces are torn down (see nsinit.Main's -w).
			flags = append(flags, "-w")
		case BackendLandlock:
			sbFlags = append(sbFlags, landlockFlag(sb))
		default:
			p.sandboxFault = "no sandbox can be made here: " + backendWhy
		}
	}
	if hm == ModeGroup {
		flags = append(flags, "-r") // no namespace of its own: the helper is a subreaper
	}
	if p.opts.Judge != nil {
		flags = append(flags, "-s")
	}
	ownProc := p.opts.OwnProc && hm != ModeGroup
	if ownProc {
		flags = append(flags, "-p")
	}
	if n := len(p.opts.ExtraFiles); n > 0 {
		flags = append(flags, "-x="+strconv.Itoa(n))
	}
	cmd := helper(hm, append(flags, sbFlags...), append([]string{"--"}, argv...)...)
	if ownProc {
		cmd.SysProcAttr.Cloneflags |= syscall.CLONE_NEWNS
	}
	cmd.Dir = p.opts.Dir
	cmd.Env = env
	if m == ModeGroup {
		p.plat.cg = newCgroup(cmd)
	}
	return cmd
}

func (p *Process) start() error {
	if p.opts.Judge != nil && !p.opts.Loose {
		fds, err := unix.Socketpair(unix.AF_UNIX, unix.SOCK_SEQPACKET|unix.SOCK_CLOEXEC, 0)
		if err != nil {
			return fmt.Errorf("no socket for the exec supervisor: %w", err)
		}
		p.plat.sock, p.plat.child = os.NewFile(uintptr(fds[0]), "supervisor"), os.NewFile(uintptr(fds[1]), "supervisor-helper")
		p.Cmd.ExtraFiles = append(p.Cmd.ExtraFiles, p.plat.child)
		if p.plat.stopR, p.plat.stopW, err = os.Pipe(); err != nil {
			return fmt.Errorf("no pipe for the exec supervisor: %w", err)
		}
	}
	if !p.loosened() {
		// The command's own descriptors come after the helper's (see nsinit.Main's -x).
		p.Cmd.ExtraFiles = append(p.Cmd.ExtraFiles, p.opts.ExtraFiles...)
	}
	err := p.Cmd.Start()
	if p.plat.child != nil {
		p.plat.child.Close()
		p.plat.child = nil
	}
	if p.plat.cg != nil {
		p.plat.cg.started()
	}
	if err != nil {
		return err
	}
	if p.plat.sock != nil {
		p.plat.served = make(chan struct{})
		go p.supervise()
	}
	return nil
}

// killRest kills what is left in the command's cgroup.
func (p *Process) killRest() {
	if p.plat.cg != nil {
		p.plat.cg.kill()
	}
}

// finish lets go of what the process held: the supervisor, the cgroup.
func (p *Process) finish() {
	if p.plat.child != nil {
		p.plat.child.Close()
		p.plat.child = nil
	}
	if p.plat.stopW != nil {
		p.plat.stopW.Close()
		p.plat.stopW = nil
	}
	if p.plat.served != nil {
		<-p.plat.served
	}
	if p.plat.sock != nil {
		p.plat.sock.Close()
		p.plat.sock = nil
	}
	if p.plat.stopR != nil {
		p.plat.stopR.Close()
		p.plat.stopR = nil
	}
	if p.plat.cg != nil {
		p.plat.cg.remove()
		p.plat.cg = nil
	}
}

// lastValue is the value of the variable name in env, the last one set winning ("":
// none).
func lastValue(env []string, name string) string {
	for i := len(env) - 1; i >= 0; i-- {
		if k, v, ok := strings.Cut(env[i], "="); ok && k == name {
			return v
		}
	}
	return ""
}
