//go:build !linux

package contain

import "os/exec"

// probe: there are no namespaces, cgroups or seccomp outside Linux.
func probe() {
	mode, why = ModeGroup, "PID namespaces are Linux's"
}

func probeSupervisor() string { return "the exec supervisor needs Linux's seccomp" }

func cgroupRoot() string { return "" }

// Cleanup has nothing to clean outside Linux.
func Cleanup() {}

type platform struct{}

func (p *Process) command(argv []string) *exec.Cmd { return p.loose(argv) }

func (p *Process) start() error {
	if p.opts.Judge != nil && !p.opts.Loose {
		p.faulted("the exec supervisor needs Linux's seccomp")
	}
	if p.opts.Sandbox != nil && !p.opts.Loose {
		p.sandboxFault = "sandboxes need Linux"
	}
	return p.Cmd.Start()
}

func (p *Process) killRest() {}
func (p *Process) finish()   {}
