package contain

import "golang.org/x/sys/unix"

// filterArches: amd64 runs 64-bit, x32 and i386 programs.
var filterArches = []filterArch{
	{audit: unix.AUDIT_ARCH_X86_64, ptrSize: 8, execve: unix.SYS_EXECVE, execat: unix.SYS_EXECVEAT,
		nrs: []uint32{unix.SYS_EXECVE, unix.SYS_EXECVEAT, x32Execve, x32Execveat}},
	{audit: unix.AUDIT_ARCH_I386, ptrSize: 4, execve: 11, execat: 358, nrs: []uint32{11, 358}},
}
