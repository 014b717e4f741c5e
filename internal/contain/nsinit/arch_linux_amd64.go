package nsinit

// sysSeccomp is seccomp(2)'s number.
const sysSeccomp = 317

// Arches: amd64 runs 64-bit, x32 and i386 programs.
var Arches = []Arch{
	{Audit: 0xc000003e /* AUDIT_ARCH_X86_64 */, PtrSize: 8, Execve: 59, Execat: 322,
		Nrs: []uint32{59, 322, X32Execve, X32Execveat}},
	{Audit: 0x40000003 /* AUDIT_ARCH_I386 */, PtrSize: 4, Execve: 11, Execat: 358, Nrs: []uint32{11, 358}},
}
