package contain

import (
	"errors"
	"fmt"
	"runtime"
	"unsafe"

	"golang.org/x/net/bpf"
	"golang.org/x/sys/unix"
)

// The seccomp filter the helper installs stops execve and execveat with
// SECCOMP_RET_USER_NOTIF for every architecture the processor runs (a 32-bit
// program on amd64 included) and lets every other system call through. A system call
// of an architecture the filter does not know fails with EPERM: it could be an exec.

// filterArch is one architecture's exec system calls.
type filterArch struct {
	audit   uint32   // AUDIT_ARCH_*
	nrs     []uint32 // execve, execveat (and their x32 numbers on amd64)
	ptrSize int      // the size of a pointer in argv
	execve  uint32
	execat  uint32
}

// x32's exec system calls, on amd64.
const (
	x32Execve   = x32Bit | 520
	x32Execveat = x32Bit | 545
)

// call says whether nr is an exec of a, whether it is execveat, and the size of a
// pointer in its arguments.
func (a filterArch) call(nr uint32) (exec, at bool, ptrSize int) {
	switch nr {
	case a.execve:
		return true, false, a.ptrSize
	case a.execat:
		return true, true, a.ptrSize
	case x32Execve:
		return true, false, 4
	case x32Execveat:
		return true, true, 4
	}
	return false, false, 0
}

// x32Bit marks the system calls of amd64's x32 ABI.
const x32Bit = 0x40000000

// seccomp_data's layout: nr, arch, instruction_pointer, args[6].
const (
	offNr   = 0
	offArch = 4
)

// filterProgram assembles the filter for the arches.
func filterProgram(arches []filterArch) ([]unix.SockFilter, error) {
	var prog []bpf.Instruction
	prog = append(prog, bpf.LoadAbsolute{Off: offArch, Size: 4})
	for _, a := range arches {
		k := len(a.nrs)
		block := 1 + k + 2 // load nr, k tests, allow, notify
		prog = append(prog, bpf.JumpIf{Cond: bpf.JumpEqual, Val: a.audit, SkipTrue: 0, SkipFalse: uint8(block)})
		prog = append(prog, bpf.LoadAbsolute{Off: offNr, Size: 4})
		for j, nr := range a.nrs {
			prog = append(prog, bpf.JumpIf{Cond: bpf.JumpEqual, Val: nr, SkipTrue: uint8(k - j), SkipFalse: 0})
		}
		prog = append(prog, bpf.RetConstant{Val: unix.SECCOMP_RET_ALLOW}, bpf.RetConstant{Val: unix.SECCOMP_RET_USER_NOTIF})
		// Back to the arch for the next block's test.
		prog = append(prog, bpf.LoadAbsolute{Off: offArch, Size: 4})
	}
	prog = append(prog, bpf.RetConstant{Val: unix.SECCOMP_RET_ERRNO | uint32(unix.EPERM)})
	raw, err := bpf.Assemble(prog)
	if err != nil {
		return nil, err
	}
	out := make([]unix.SockFilter, len(raw))
	for i, r := range raw {
		out[i] = unix.SockFilter{Code: r.Op, Jt: r.Jt, Jf: r.Jf, K: r.K}
	}
	return out, nil
}

// installFilter sets no_new_privs and installs the filter on the calling thread,
// returning the listener. The caller has locked its goroutine to the thread and
// starts the command from it.
func installFilter() (int, error) {
	prog, err := filterProgram(filterArches)
	if err != nil {
		return -1, err
	}
	if err := unix.Prctl(unix.PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0); err != nil {
		return -1, fmt.Errorf("no_new_privs: %w", err)
	}
	fprog := unix.SockFprog{Len: uint16(len(prog)), Filter: &prog[0]}
	flags := uintptr(unix.SECCOMP_FILTER_FLAG_NEW_LISTENER | unix.SECCOMP_FILTER_FLAG_WAIT_KILLABLE_RECV)
	for {
		fd, _, errno := unix.Syscall(unix.SYS_SECCOMP, unix.SECCOMP_SET_MODE_FILTER, flags, uintptr(unsafe.Pointer(&fprog)))
		runtime.KeepAlive(prog)
		switch {
		case errno == 0:
			return int(fd), nil
		case errno == unix.EINVAL && flags&unix.SECCOMP_FILTER_FLAG_WAIT_KILLABLE_RECV != 0:
			flags &^= unix.SECCOMP_FILTER_FLAG_WAIT_KILLABLE_RECV // before Linux 5.19
		case errno == unix.EBUSY:
			return -1, errors.New("another exec supervisor already watches this process (the kernel allows one: is gantry running inside gantry?)")
		default:
			return -1, fmt.Errorf("seccomp: %w", errno)
		}
	}
}

// seccompData is struct seccomp_data.
type seccompData struct {
	Nr   int32
	Arch uint32
	IP   uint64
	Args [6]uint64
}

// seccompNotif is struct seccomp_notif.
type seccompNotif struct {
	ID    uint64
	Pid   uint32
	Flags uint32
	Data  seccompData
}

// seccompResp is struct seccomp_notif_resp.
type seccompResp struct {
	ID    uint64
	Val   int64
	Error int32
	Flags uint32
}

func ioctl(fd int, req uintptr, arg unsafe.Pointer) error {
	_, _, errno := unix.Syscall(unix.SYS_IOCTL, uintptr(fd), req, uintptr(arg))
	if errno != 0 {
		return errno
	}
	return nil
}

// receive reads one notification.
func receive(fd int) (seccompNotif, error) {
	var n seccompNotif // the kernel wants it zeroed
	for {
		err := ioctl(fd, unix.SECCOMP_IOCTL_NOTIF_RECV, unsafe.Pointer(&n))
		if !errors.Is(err, unix.EINTR) {
			return n, err
		}
	}
}

// valid tells whether the notification id still stands: its process is still
// stopped in the system call (so what was read of its memory was its own).
func valid(fd int, id uint64) bool {
	return ioctl(fd, unix.SECCOMP_IOCTL_NOTIF_ID_VALID, unsafe.Pointer(&id)) == nil
}

// respond lets the exec go on, or fails it with errno.
func respond(fd int, id uint64, errno unix.Errno) error {
	r := seccompResp{ID: id}
	if errno == 0 {
		r.Flags = unix.SECCOMP_USER_NOTIF_FLAG_CONTINUE
	} else {
		r.Error = -int32(errno)
	}
	return ioctl(fd, unix.SECCOMP_IOCTL_NOTIF_SEND, unsafe.Pointer(&r))
}

// archOf is the filterArch of a notification.
func archOf(audit uint32) (filterArch, bool) {
	for _, a := range filterArches {
		if a.audit == audit {
			return a, true
		}
	}
	return filterArch{}, false
}
