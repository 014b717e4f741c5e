// Package contain runs a shell command so that nothing it starts outlives it, and so
// that it runs no program it was told not to run: the command runs under a small init
// of gantry's own — gantry's binary started again in a helper mode — as the first
// process of a PID namespace of its own (in a user namespace of its own when gantry is
// not root). When the command ends, times out or is cancelled, or gantry dies (even by
// kill -9: the helper watches a pipe only gantry holds open), the init exits and the
// kernel kills every process of the namespace: setsid, nohup and double forks
// included.
//
// With a Judge, the helper also installs a seccomp filter on itself before it starts
// the command, which stops every execve and execveat of the command and of everything
// it starts, and hands the filter's listener to gantry: gantry reads the program and
// its arguments from the process and answers EPERM or lets the exec go on (see
// supervise_linux.go). A program hidden from the shell parser still cannot run.
//
// Where namespaces cannot be made (a kernel or a container that forbids them), a
// command falls back to a session and process group of its own, in a cgroup of its own
// when one is writable, and Status says so.
package contain

import (
	"bytes"
	"context"
	"errors"
	"os"
	"os/exec"
	"slices"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/gantry-dev/gantry/internal/procgroup"
)

// waitDelay bounds how long Wait keeps reading a pipe a leftover process holds, for
// a standard stream that is not a file (see exec.Cmd.WaitDelay).
const waitDelay = time.Second

// Mode says how commands are contained here.
type Mode int

const (
	// ModeGroup: a session and process group of its own (no namespaces here), in a
	// cgroup of its own when one is writable.
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
	if cgroupRoot() != "" {
		return "a process group and a cgroup per command (no namespaces)"
	}
	return "a process group per command (no namespaces, no writable cgroup)"
}

var (
	probeOnce sync.Once
	superOnce sync.Once
	mode      Mode
	why       string // why there are no namespaces, for ModeGroup
	superWhy  string // why there is no exec supervisor; "" when there is one
)

// Status says how commands are contained here and, when it is by process group only,
// why namespaces could not be made. The first call probes (it starts one helper).
func Status() (Mode, string) {
	probeOnce.Do(probe)
	return mode, why
}

// Supervisor says whether the exec supervisor can run here, and if not, why.
func Supervisor() (ok bool, reason string) {
	probeOnce.Do(probe)
	superOnce.Do(func() { superWhy = probeSupervisor() })
	return superWhy == "", superWhy
}

// Options say how to run one command.
type Options struct {
	// Dir is the working directory; Env is added to the inherited environment (later
	// duplicates win).
	Dir string
	Env []string
	// Loose runs the command in a session and process group of its own only — no
	// namespace, no supervisor: a hook from a settings file, which Claude Code runs so.
	// When a loose command exits, its group is hung up (procgroup.Hangup) rather than
	// killed, so that what it detached on purpose (nohup, setsid) lives on; at its
	// timeout, or when it is cancelled, the group is killed.
	Loose bool
	// Judge, when set, is asked about every program the command and its descendants
	// execute, before it runs; a refusal makes the exec fail with EPERM and is kept
	// (see Process.Blocked).
	Judge Judge
	// ExtraFiles are given to the command as its descriptors 3, 4, … (a protocol's
	// pipes), whatever the helper holds itself.
	ExtraFiles []*os.File
	// OwnProc gives the command a /proc of its own PID namespace (in a mount
	// namespace of its own): a debugger, which reads its children's /proc entries by
	// the pids it sees, needs it. Without namespaces it changes nothing.
	OwnProc bool
	// Sandbox, when set, runs the command in a sandbox (see SandboxStatus); where none
	// can be made the command runs without and Fault says so.
	Sandbox *Sandbox
	// Argv, when set, is run instead of `bash -c script`: a program (looked up on
	// PATH) and its arguments.
	Argv []string
	// DropEnv, when set, names the variables of gantry's environment the command must
	// not inherit (Env may set them again).
	DropEnv func(name string) bool
	// Plain runs the command in a session and process group of its own, with no
	// helper, killed whole when it ends (Wait): for a program that starts nothing
	// meant to outlive it and needs no supervisor (see Widening.OutsideSandbox).
	Plain bool
}

// Judge decides whether a program may run; the zero Refusal lets it.
type Judge func(Exec) Refusal

// Refusal says why an exec was refused: the rule, and the command as the rule saw it.
type Refusal struct {
	Rule    string
	Command string
}

// Refused tells whether r refuses.
func (r Refusal) Refused() bool { return r.Rule != "" }

// Exec is one program a supervised command is about to run, as the kernel sees it.
type Exec struct {
	// Pid is the process, as gantry sees it.
	Pid int
	// Path is the program as the process named it (absolute, or relative to its
	// working directory); Argv its arguments, Argv[0] included.
	Path string
	Argv []string
	// File is the program's file, opened from the process's view of the filesystem
	// (read-only, or O_PATH when it cannot be read); nil when it cannot be opened.
	File *os.File
	// Truncated: the arguments were too long to read whole.
	Truncated bool
	open      func(name string) (*os.File, error)
}

// Open opens name (absolute, or relative to the process's working directory) as the
// process would see it: in its root, its mount namespace. The caller closes it.
func (x Exec) Open(name string) (*os.File, error) {
	if x.open == nil {
		return nil, errors.ErrUnsupported
	}
	return x.open(name)
}

// Process is one contained command. Set Cmd's standard streams, then Start it.
type Process struct {
	Cmd  *exec.Cmd
	opts Options
	plat platform // what the OS needs of a process: sockets, a cgroup, a supervisor

	mu      sync.Mutex
	blocked []Refusal
	fault   string // why supervision failed for this command
	// sandboxFault says why the command runs without the sandbox it was given.
	sandboxFault string
}

// SandboxFault says why the command ran without the sandbox it was given ("" when it
// ran in it, or was given none).
func (p *Process) SandboxFault() string {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.sandboxFault
}

// New prepares `bash -c script` (or o.Argv) as Options say, contained as Status says.
// It leads a session and process group of its own either way, with stdin from
// /dev/null unless the caller sets one. Outside this package, processes start through
// a Policy (see Policy.Process).
func New(script string, o Options) *Process {
	p := &Process{opts: o}
	p.Cmd = p.command(p.argv(script))
	// A writer that is not a file is fed by a goroutine of exec's, which a leftover
	// process holding the pipe would keep alive: Wait lets go of it after a while.
	p.Cmd.WaitDelay = waitDelay
	return p
}

// Start starts the command (and its supervisor, with a Judge).
func (p *Process) Start() error {
	if err := p.start(); err != nil {
		p.finish()
		return err
	}
	return nil
}

// Pid is the command's process id as gantry sees it, which is also its group's.
func (p *Process) Pid() int { return p.Cmd.Process.Pid }

// Wait waits for the started command to exit; at timeout (none when 0) or when ctx
// ends first it stops everything it started. After a normal exit, settle runs (to let
// output drain) and what the command left running is stopped (a Loose command's group
// is hung up instead, see Options.Loose). grace is the time between SIGTERM and
// SIGKILL.
func (p *Process) Wait(ctx context.Context, timeout, grace time.Duration, settle func()) procgroup.Ending {
	if timeout <= 0 {
		timeout = 1<<63 - 1
	}
	wait := procgroup.Wait
	if p.opts.Loose {
		wait = procgroup.WaitHangup
	}
	end := wait(ctx, p.Cmd, timeout, grace, func() {
		if settle != nil {
			settle()
		}
	})
	if !p.opts.Loose || end.TimedOut || end.Cancelled {
		p.Stop(grace)
	}
	p.finish()
	return end
}

// Stop stops everything the command started: SIGTERM, then SIGKILL after grace.
func (p *Process) Stop(grace time.Duration) {
	if p.Cmd.Process == nil {
		return
	}
	procgroup.Kill(p.Cmd.Process.Pid, grace)
	p.killRest()
}

// Blocked lists the execs the Judge refused, in order.
func (p *Process) Blocked() []Refusal {
	p.mu.Lock()
	defer p.mu.Unlock()
	return append([]Refusal(nil), p.blocked...)
}

// Fault says why the supervisor could not watch this command ("" when it did, or when
// there was no Judge): the command then ran checked by the parser only.
func (p *Process) Fault() string {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.fault
}

func (p *Process) refused(r Refusal) {
	p.mu.Lock()
	p.blocked = append(p.blocked, r)
	p.mu.Unlock()
}

func (p *Process) faulted(s string) {
	p.mu.Lock()
	if p.fault == "" {
		p.fault = s
	}
	p.mu.Unlock()
}

// argv is what the process runs: Options.Argv, else `bash -c script`.
func (p *Process) argv(script string) []string {
	if len(p.opts.Argv) > 0 {
		return p.opts.Argv
	}
	return []string{"bash", "-c", script}
}

// loose is the command of a process group only: argv in its own session and process
// group (no controlling terminal, so it cannot read or prompt on gantry's), in Dir,
// with Env added to gantry's environment (later duplicates win).
func (p *Process) loose(argv []string) *exec.Cmd {
	cmd := exec.Command(argv[0], argv[1:]...)
	cmd.Dir = p.opts.Dir
	cmd.Env = p.environ()
	cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true}
	cmd.ExtraFiles = p.opts.ExtraFiles
	return cmd
}

// WaitExit waits for a long-running process (a server) to exit by itself and lets go
// of its supervisor; it stops nothing the process left (Stop does).
func (p *Process) WaitExit() error {
	err := p.Cmd.Wait()
	p.finish()
	return err
}

// environ is the command's environment: gantry's (less DropEnv's), then Env.
func (p *Process) environ() []string {
	env := os.Environ()
	if drop := p.opts.DropEnv; drop != nil {
		env = slices.DeleteFunc(env, func(kv string) bool {
			k, _, _ := strings.Cut(kv, "=")
			return drop(k)
		})
	}
	return append(env, p.opts.Env...)
}

// Output runs the process to its end and returns its standard output, as
// exec.Cmd.Output does (standard error goes with an *exec.ExitError unless the
// caller set Cmd.Stderr); ctx ending first stops it.
func (p *Process) Output(ctx context.Context) ([]byte, error) {
	var out, errb bytes.Buffer
	p.Cmd.Stdout = &out
	captured := p.Cmd.Stderr == nil
	if captured {
		p.Cmd.Stderr = &errb
	}
	if err := p.Start(); err != nil {
		return nil, err
	}
	end := p.Wait(ctx, 0, time.Second, nil)
	if end.Cancelled {
		return out.Bytes(), ctx.Err()
	}
	var ee *exec.ExitError
	if captured && errors.As(end.Err, &ee) {
		ee.Stderr = errb.Bytes()
	}
	return out.Bytes(), end.Err
}
