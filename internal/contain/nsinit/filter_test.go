//go:build linux && (amd64 || arm64)

package nsinit

import (
	"runtime"
	"testing"

	"golang.org/x/net/bpf"
	"golang.org/x/sys/unix"
)

// bpfProgram is the filter as golang.org/x/net/bpf assembles it, which Program writes
// by hand.
func bpfProgram(t *testing.T, arches []Arch) []SockFilter {
	t.Helper()
	var prog []bpf.Instruction
	prog = append(prog, bpf.LoadAbsolute{Off: offArch, Size: 4})
	for _, a := range arches {
		k := len(a.Nrs)
		block := 1 + k + 2
		prog = append(prog, bpf.JumpIf{Cond: bpf.JumpEqual, Val: a.Audit, SkipTrue: 0, SkipFalse: uint8(block)})
		prog = append(prog, bpf.LoadAbsolute{Off: offNr, Size: 4})
		for j, nr := range a.Nrs {
			prog = append(prog, bpf.JumpIf{Cond: bpf.JumpEqual, Val: nr, SkipTrue: uint8(k - j), SkipFalse: 0})
		}
		prog = append(prog, bpf.RetConstant{Val: unix.SECCOMP_RET_ALLOW}, bpf.RetConstant{Val: unix.SECCOMP_RET_USER_NOTIF})
		prog = append(prog, bpf.LoadAbsolute{Off: offArch, Size: 4})
	}
	prog = append(prog, bpf.RetConstant{Val: unix.SECCOMP_RET_ERRNO | uint32(unix.EPERM)})
	raw, err := bpf.Assemble(prog)
	if err != nil {
		t.Fatal(err)
	}
	out := make([]SockFilter, len(raw))
	for i, r := range raw {
		out[i] = SockFilter{Code: r.Op, Jt: r.Jt, Jf: r.Jf, K: r.K}
	}
	return out
}

// The hand-written filter is the one bpf assembles, and its numbers are the kernel's.
func TestFilterIsTheKernels(t *testing.T) {
	got, want := Program(Arches), bpfProgram(t, Arches)
	if len(got) != len(want) {
		t.Fatalf("%d instructions, bpf assembles %d", len(got), len(want))
	}
	for i := range got {
		if got[i] != want[i] {
			t.Errorf("instruction %d is %+v, bpf assembles %+v", i, got[i], want[i])
		}
	}
	audit := map[string]uint32{"amd64": unix.AUDIT_ARCH_X86_64, "arm64": unix.AUDIT_ARCH_AARCH64}[runtime.GOARCH]
	for _, c := range []struct {
		name      string
		got, want uint64
	}{
		{"audit arch", uint64(Arches[0].Audit), uint64(audit)},
		{"execve", uint64(Arches[0].Execve), unix.SYS_EXECVE},
		{"execveat", uint64(Arches[0].Execat), unix.SYS_EXECVEAT},
		{"seccomp", sysSeccomp, unix.SYS_SECCOMP},
		{"SECCOMP_SET_MODE_FILTER", seccompSetModeFilter, unix.SECCOMP_SET_MODE_FILTER},
		{"SECCOMP_FILTER_FLAG_NEW_LISTENER", seccompFlagNewListener, unix.SECCOMP_FILTER_FLAG_NEW_LISTENER},
		{"SECCOMP_FILTER_FLAG_WAIT_KILLABLE_RECV", seccompFlagWaitKillableRecv, unix.SECCOMP_FILTER_FLAG_WAIT_KILLABLE_RECV},
		{"PR_SET_NO_NEW_PRIVS", prSetNoNewPrivs, unix.PR_SET_NO_NEW_PRIVS},
		{"PR_SET_CHILD_SUBREAPER", prSetChildSubreaper, unix.PR_SET_CHILD_SUBREAPER},
	} {
		if c.got != c.want {
			t.Errorf("%s is %#x here, %#x in the kernel's headers", c.name, c.got, c.want)
		}
	}
	if len(Arches) > 1 {
		a := Arches[1]
		want := map[string]uint32{"amd64": unix.AUDIT_ARCH_I386, "arm64": unix.AUDIT_ARCH_ARM}[runtime.GOARCH]
		if a.Audit != want {
			t.Errorf("the 32-bit arch is %#x, want %#x", a.Audit, want)
		}
	}
}
