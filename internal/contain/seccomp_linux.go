package contain

import (
	"errors"
	"unsafe"

	"golang.org/x/sys/unix"

	"github.com/gantry-dev/gantry/internal/contain/nsinit"
)

// The seccomp filter the helper installs (nsinit's) stops execve and execveat of
// every architecture the processor runs; the supervisor answers them here.

// filterArch is one architecture's exec system calls (nsinit.Arch).
type filterArch struct {
	audit   uint32   // AUDIT_ARCH_*
	nrs     []uint32 // execve, execveat (and their x32 numbers on amd64)
	ptrSize int      // the size of a pointer in argv
	execve  uint32
	execat  uint32
}

// filterArches are those of the helper's filter.
var filterArches = func() []filterArch {
	var out []filterArch
	for _, a := range nsinit.Arches {
		out = append(out, filterArch{audit: a.Audit, nrs: a.Nrs, ptrSize: a.PtrSize, execve: a.Execve, execat: a.Execat})
	}
	return out
}()

// call says whether nr is an exec of a, whether it is execveat, and the size of a
// pointer in its arguments.
func (a filterArch) call(nr uint32) (exec, at bool, ptrSize int) {
	switch nr {
	case a.execve:
		return true, false, a.ptrSize
	case a.execat:
		return true, true, a.ptrSize
	case nsinit.X32Execve:
		return true, false, 4
	case nsinit.X32Execveat:
		return true, true, 4
	}
	return false, false, 0
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
