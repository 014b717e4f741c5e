//go:build linux && (amd64 || arm64)

package exepages

import (
	"errors"
	"fmt"
	"syscall"
	"unsafe"

	_ "github.com/gantry-dev/gantry/internal/contain/nsinit" // its init first: a helper exits there
)

// From linux/userfaultfd.h (the syscall package does not have them).
const (
	uffdUserModeOnly   = 1       // UFFD_USER_MODE_ONLY: allowed without CAP_SYS_PTRACE
	uffdAPI            = 0xAA    // UFFD_API
	uffdFeatureWPAsync = 1 << 15 // UFFD_FEATURE_WP_ASYNC (Linux 6.7)
	uffdRegisterModeWP = 1 << 1  // UFFDIO_REGISTER_MODE_WP
	// _IOWR(0xAA, 0x3F, struct uffdio_api) and _IOWR(0xAA, 0x00, struct uffdio_register).
	uffdioAPI      = 0xC018AA3F
	uffdioRegister = 0xC020AA00
)

var (
	// fd is the userfaultfd the mappings are registered with, -1 for none. It stays
	// open for the process's life (closing it ends the registration) and is
	// close-on-exec, so that no command inherits it.
	fd = -1
	// err says why the mappings are not registered.
	err error
)

func init() {
	err = register()
}

// Registered reports whether the executable's pages are mapped one at a time.
func Registered() bool { return fd >= 0 }

// Err says why they are not, nil when they are.
func Err() error { return err }

// register registers the executable's read-only mappings with a new userfaultfd.
func register() error {
	maps, err := Mappings()
	if err != nil {
		return err
	}
	u, _, errno := syscall.Syscall(sysUserfaultfd, syscall.O_CLOEXEC|syscall.O_NONBLOCK|uffdUserModeOnly, 0, 0)
	if errno != 0 {
		return fmt.Errorf("the kernel refuses a userfaultfd: %w", errno)
	}
	api := struct{ api, features, ioctls uint64 }{uffdAPI, uffdFeatureWPAsync, 0}
	if _, _, errno := syscall.Syscall(syscall.SYS_IOCTL, u, uffdioAPI, uintptr(unsafe.Pointer(&api))); errno != 0 {
		_ = syscall.Close(int(u))
		return fmt.Errorf("the kernel's userfaultfd has no asynchronous write-protection (Linux 6.7): %w", errno)
	}
	n := 0
	var errs []error
	for _, m := range maps {
		if !m.ReadOnly() {
			continue
		}
		reg := struct{ start, len, mode, ioctls uint64 }{uint64(m.Start), uint64(m.End - m.Start), uffdRegisterModeWP, 0}
		if _, _, errno := syscall.Syscall(syscall.SYS_IOCTL, u, uffdioRegister, uintptr(unsafe.Pointer(&reg))); errno != 0 {
			errs = append(errs, fmt.Errorf("registering %#x-%#x: %w", m.Start, m.End, errno))
			continue
		}
		n++
	}
	if n == 0 {
		_ = syscall.Close(int(u))
		return errors.Join(append(errs, errors.New("no mapping of the executable could be registered"))...)
	}
	fd = int(u)
	return nil
}
