package contain

import "golang.org/x/sys/unix"

// filterArches: arm64 runs 64-bit programs, and on some processors 32-bit ARM ones.
var filterArches = []filterArch{
	{audit: unix.AUDIT_ARCH_AARCH64, ptrSize: 8, execve: unix.SYS_EXECVE, execat: unix.SYS_EXECVEAT,
		nrs: []uint32{unix.SYS_EXECVE, unix.SYS_EXECVEAT}},
	{audit: unix.AUDIT_ARCH_ARM, ptrSize: 4, execve: 11, execat: 387, nrs: []uint32{11, 387}},
}
