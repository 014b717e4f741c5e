//go:build linux && (amd64 || arm64)

package exepages

import (
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"unsafe"
)

// Registered, a page of gantry's code read for the first time is mapped alone; not
// registered, the kernel maps the cached pages around it too. The check runs in a copy
// of this test binary written a page at a time: a file fresh from the linker sits in
// the page cache in large folios, which the kernel maps whole whatever the
// registration (an installed binary is read back from the disk in smaller pieces).
func TestRegisteredMapsOnlyTheTouchedPage(t *testing.T) {
	if os.Getenv(copyEnv) == "" {
		runCopied(t, "TestRegisteredMapsOnlyTheTouchedPage")
		return
	}
	if !Registered() {
		t.Skipf("this kernel refuses the registration, so gantry runs with its fault-around: %v", Err())
	}
	flags := vmFlags(t, uintptr(reflect.ValueOf(Mappings).UnsafePointer()))
	if !strings.Contains(" "+flags+" ", " uw ") {
		t.Errorf("the code's mapping is not registered for write-protect tracking: VmFlags %q", flags)
	}
	code := reflect.ValueOf(Mappings).UnsafePointer() // code no other goroutine runs meanwhile

	unregister(t)
	before := mappedAround(t, code)
	if err := register(); err != nil {
		t.Fatalf("registering again: %v", err)
	}
	after := mappedAround(t, code)
	t.Logf("pages mapped of the 16 around a first read: %d with the kernel's fault-around, %d registered", before, after)
	// The read maps its page alone; a neighbour of the same 64 KB may be mapped by
	// code running meanwhile (the test's own, the runtime's), never the whole block.
	if after > 4 {
		t.Errorf("a first read mapped %d pages around it, want the page alone", after)
	}
	if before > 8 && after > before/2 {
		t.Errorf("registering changed little: %d pages before, %d after", before, after)
	}
	// The code runs on and its read-only data reads back the same.
	maps, err := Mappings()
	if err != nil || len(maps) < 2 {
		t.Fatalf("code after the registration: %v %v", maps, err)
	}
	if s := fmt.Sprint(errors.New("the executable is not among the process's mappings")); !strings.HasPrefix(s, "the executable") {
		t.Fatal("read-only data changed")
	}
}

// Each read-only mapping is registered, and the userfaultfd is not inherited.
func TestRegistered(t *testing.T) {
	if !Registered() {
		t.Skipf("this kernel refuses the registration: %v", Err())
	}
	maps, err := Mappings()
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, m := range maps {
		if !m.ReadOnly() {
			continue
		}
		n++
		if flags := vmFlags(t, m.Start); !strings.Contains(" "+flags+" ", " uw ") {
			t.Errorf("%#x-%#x %s: VmFlags %q, want uw", m.Start, m.End, m.Perms, flags)
		}
	}
	if n < 2 {
		t.Errorf("%d read-only mappings; the code and the read-only data are at least two", n)
	}
	flags, _, errno := syscall.Syscall(syscall.SYS_FCNTL, uintptr(fd), syscall.F_GETFD, 0)
	if errno != 0 || flags&syscall.FD_CLOEXEC == 0 {
		t.Fatalf("F_GETFD: %#x %v; want FD_CLOEXEC", flags, errno)
	}
}

// unregister closes the userfaultfd, which ends the registration.
func unregister(t *testing.T) {
	t.Helper()
	if err := syscall.Close(fd); err != nil {
		t.Fatal(err)
	}
	fd = -1
}

var sink byte

// copyEnv marks the copy of the test binary runCopied runs.
const copyEnv = "GANTRY_TEST_EXEPAGES_COPY"

// runCopied runs test in a copy of the test binary written 4 KB at a time, and ends t
// as the copy's test ended.
func runCopied(t *testing.T, test string) {
	t.Helper()
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	src, err := os.Open(self)
	if err != nil {
		t.Fatal(err)
	}
	defer src.Close()
	copied := filepath.Join(t.TempDir(), "gantry.test")
	dst, err := os.OpenFile(copied, os.O_CREATE|os.O_WRONLY|os.O_EXCL, 0o755)
	if err != nil {
		t.Fatal(err)
	}
	// 4 KB writes: plain Reader and Writer, so that io does not hand the copy to the
	// kernel (copy_file_range) in large pieces.
	if _, err := io.CopyBuffer(struct{ io.Writer }{dst}, struct{ io.Reader }{src}, make([]byte, 4096)); err != nil {
		t.Fatal(err)
	}
	if err := dst.Close(); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(copied, "-test.run", "^"+test+"$", "-test.v", "-test.count=1")
	cmd.Env = append(os.Environ(), copyEnv+"=1")
	out, err := cmd.CombinedOutput()
	t.Logf("the copy's test:\n%s", out)
	switch {
	case err != nil:
		t.Fatalf("the copy's test failed: %v", err)
	case strings.Contains(string(out), "--- SKIP"):
		t.Skip("skipped in the copy (see above)")
	case !strings.Contains(string(out), "--- PASS: "+test):
		t.Fatal("the copy did not run the test")
	}
}

// mappedAround releases the 64 KB of code around p (within its mapping), reads p's
// byte, and counts the pages of those 64 KB then mapped.
func mappedAround(t *testing.T, p unsafe.Pointer) int {
	t.Helper()
	const window = 64 << 10
	page := uintptr(os.Getpagesize())
	addr := uintptr(p)
	lo, hi := addr&^(window-1), addr&^(window-1)+window
	maps, err := Mappings()
	if err != nil {
		t.Fatal(err)
	}
	found := false
	for _, m := range maps {
		if m.Start <= addr && addr < m.End {
			if m.Perms != "r-xp" {
				t.Fatalf("%#x is not in code", addr)
			}
			lo, hi, found = max(lo, m.Start), min(hi, m.End), true
		}
	}
	if !found {
		t.Fatalf("%#x is in no mapping of the executable", addr)
	}
	if _, _, errno := syscall.Syscall(syscall.SYS_MADVISE, lo, hi-lo, syscall.MADV_DONTNEED); errno != 0 {
		t.Fatalf("madvise: %v", errno)
	}
	sink += *(*byte)(p)
	f, err := os.Open("/proc/self/pagemap")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	buf := make([]byte, (hi-lo)/page*8)
	if _, err := f.ReadAt(buf, int64(lo/page*8)); err != nil && err != io.EOF {
		t.Fatal(err)
	}
	n := 0
	for i := 0; i < len(buf); i += 8 {
		if binary.LittleEndian.Uint64(buf[i:])&(1<<63) != 0 { // present
			n++
		}
	}
	return n
}

// vmFlags returns the VmFlags line of /proc/self/smaps for the mapping holding p.
func vmFlags(t *testing.T, p uintptr) string {
	t.Helper()
	data, err := os.ReadFile("/proc/self/smaps")
	if err != nil {
		t.Fatal(err)
	}
	in := false
	for _, line := range strings.Split(string(data), "\n") {
		// A mapping's line opens with its range, start-end in hexadecimal.
		if lo, hi, ok := strings.Cut(strings.Fields(line + " x")[0], "-"); ok {
			start, err1 := strconv.ParseUint(lo, 16, 64)
			end, err2 := strconv.ParseUint(hi, 16, 64)
			if err1 == nil && err2 == nil {
				in = uintptr(start) <= p && p < uintptr(end)
				continue
			}
		}
		if in && strings.HasPrefix(line, "VmFlags:") {
			return strings.TrimSpace(strings.TrimPrefix(line, "VmFlags:"))
		}
	}
	t.Fatalf("no mapping of /proc/self/smaps holds %#x", p)
	return ""
}
