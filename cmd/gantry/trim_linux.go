package main

import (
	"bufio"
	"os"
	"strconv"
	"strings"

	"golang.org/x/sys/unix"
)

// releaseInitPages unmaps the pages of gantry's own code and read-only data that
// package initialisation touched, so that only what the session runs is mapped again
// (on first use, from the page cache). The model SDKs' initialisation touches some
// 15 MB of tables and code that nothing uses afterwards; the kernel maps them in
// large blocks around each touched page and counts them as resident. Only the
// executable's read-only mappings are released: their pages cannot have changed,
// so dropping them loses nothing.
func releaseInitPages() {
	exe, err := os.Executable()
	if err != nil {
		return
	}
	f, err := os.Open("/proc/self/maps")
	if err != nil {
		return
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		// start-end perms offset dev inode path
		fields := strings.Fields(sc.Text())
		if len(fields) < 6 || fields[5] != exe || (fields[1] != "r-xp" && fields[1] != "r--p") {
			continue
		}
		lo, hi, ok := strings.Cut(fields[0], "-")
		if !ok {
			continue
		}
		start, err1 := strconv.ParseUint(lo, 16, 64)
		end, err2 := strconv.ParseUint(hi, 16, 64)
		if err1 != nil || err2 != nil || end <= start {
			continue
		}
		// The raw call: the range is an address of ours, not a Go slice.
		_, _, _ = unix.Syscall(unix.SYS_MADVISE, uintptr(start), uintptr(end-start), unix.MADV_DONTNEED)
	}
}
