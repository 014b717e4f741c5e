package nsinit

import (
	"errors"
	"fmt"
	"runtime"
	"syscall"
	"unsafe"
)

// The seccomp filter the helper installs stops execve and execveat with
// SECCOMP_RET_USER_NOTIF for every architecture the processor runs (a 32-bit
// program on amd64 included) and lets every other system call through. A system call
// of an architecture the filter does not know fails with EPERM: it could be an exec.
// It is assembled here by hand (golang.org/x/net/bpf would wait for later packages'
// initialisation); a test of package contain checks it against bpf's assembly.

// Arch is one architecture's exec system calls.
type Arch struct {
	Audit   uint32   // AUDIT_ARCH_*
	Nrs     []uint32 // execve, execveat (and their x32 numbers on amd64)
	PtrSize int      // the size of a pointer in argv
	Execve  uint32
	Execat  uint32
}

// X32Bit marks the system calls of amd64's x32 ABI.
const X32Bit = 0x40000000

// x32's exec system calls, on amd64.
const (
	X32Execve   = X32Bit | 520
	X32Execveat = X32Bit | 545
)

// seccomp_data's layout: nr, arch, instruction_pointer, args[6].
const (
	offNr   = 0
	offArch = 4
)

// The kernel's constants this file needs (linux/seccomp.h, linux/prctl.h, linux/filter.h).
const (
	seccompSetModeFilter        = 1
	seccompFlagNewListener      = 1 << 3
	seccompFlagWaitKillableRecv = 1 << 5
	SeccompRetAllow             = 0x7fff0000
	SeccompRetUserNotif         = 0x7fc00000
	SeccompRetErrno             = 0x00050000
	prSetNoNewPrivs             = 38
	prSetChildSubreaper         = 36
	bpfLdWAbs                   = 0x20 // BPF_LD | BPF_W | BPF_ABS
	bpfJmpJeqK                  = 0x15 // BPF_JMP | BPF_JEQ | BPF_K
	bpfRetK                     = 0x06 // BPF_RET | BPF_K
)

// SockFilter is struct sock_filter.
type SockFilter struct {
	Code uint16
	Jt   uint8
	Jf   uint8
	K    uint32
}

// sockFprog is struct sock_fprog.
type sockFprog struct {
	Len    uint16
	Filter *SockFilter
}

// Program assembles the filter for the arches.
func Program(arches []Arch) []SockFilter {
	prog := []SockFilter{{Code: bpfLdWAbs, K: offArch}}
	for _, a := range arches {
		k := len(a.Nrs)
		block := 1 + k + 2 // load nr, k tests, allow, notify
		prog = append(prog, SockFilter{Code: bpfJmpJeqK, K: a.Audit, Jf: uint8(block)})
		prog = append(prog, SockFilter{Code: bpfLdWAbs, K: offNr})
		for j, nr := range a.Nrs {
			prog = append(prog, SockFilter{Code: bpfJmpJeqK, K: nr, Jt: uint8(k - j)})
		}
		prog = append(prog, SockFilter{Code: bpfRetK, K: SeccompRetAllow}, SockFilter{Code: bpfRetK, K: SeccompRetUserNotif})
		// Back to the arch for the next block's test.
		prog = append(prog, SockFilter{Code: bpfLdWAbs, K: offArch})
	}
	return append(prog, SockFilter{Code: bpfRetK, K: SeccompRetErrno | uint32(syscall.EPERM)})
}

func prctl(option, arg uintptr) error {
	if _, _, errno := syscall.RawSyscall6(syscall.SYS_PRCTL, option, arg, 0, 0, 0, 0); errno != 0 {
		return errno
	}
	return nil
}

// installFilter sets no_new_privs and installs the filter on the calling thread,
// returning the listener. The caller has locked its goroutine to the thread and
// starts the command from it.
func installFilter() (int, error) {
	if len(Arches) == 0 {
		return -1, errors.New("the exec supervisor is not built for this processor")
	}
	prog := Program(Arches)
	if err := prctl(prSetNoNewPrivs, 1); err != nil {
		return -1, fmt.Errorf("no_new_privs: %w", err)
	}
	fprog := sockFprog{Len: uint16(len(prog)), Filter: &prog[0]}
	flags := uintptr(seccompFlagNewListener | seccompFlagWaitKillableRecv)
	for {
		fd, _, errno := syscall.Syscall(sysSeccomp, seccompSetModeFilter, flags, uintptr(unsafe.Pointer(&fprog)))
		runtime.KeepAlive(prog)
		switch {
		case errno == 0:
			return int(fd), nil
		case errno == syscall.EINVAL && flags&seccompFlagWaitKillableRecv != 0:
			flags &^= seccompFlagWaitKillableRecv // before Linux 5.19
		case errno == syscall.EBUSY:
			return -1, errors.New("another exec supervisor already watches this process (the kernel allows one: is gantry running inside gantry?)")
		default:
			return -1, fmt.Errorf("seccomp: %w", errno)
		}
	}
}
