//go:build darwin || dragonfly || freebsd || linux || netbsd || openbsd

package history

import (
	"os"
	"syscall"
)

type lockKind int

const (
	lockShared    lockKind = syscall.LOCK_SH
	lockExclusive lockKind = syscall.LOCK_EX
)

// flock waits for an advisory lock on f, released when f is closed.
func flock(f *os.File, how lockKind) error {
	for {
		err := syscall.Flock(int(f.Fd()), int(how))
		if err != syscall.EINTR {
			return err
		}
	}
}
