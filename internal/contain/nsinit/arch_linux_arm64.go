package nsinit

// sysSeccomp is seccomp(2)'s number.
const sysSeccomp = 277

// Arches: arm64 runs 64-bit programs, and on some processors 32-bit ARM ones.
var Arches = []Arch{
	{Audit: 0xc00000b7 /* AUDIT_ARCH_AARCH64 */, PtrSize: 8, Execve: 221, Execat: 281,
		Nrs: []uint32{221, 281}},
	{Audit: 0x40000028 /* AUDIT_ARCH_ARM */, PtrSize: 4, Execve: 11, Execat: 387, Nrs: []uint32{11, 387}},
}
