package main

import (
	"bufio"
	"debug/elf"
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
// executable's read-only mappings are released whose pages cannot have changed: not
// the range the loader (or, in a static binary, the C library's start-up) writes
// relocations into and then makes read-only (PT_GNU_RELRO) — dropping those pages
// would bring back the file's unrelocated bytes, and the next call through them
// would crash.
func releaseInitPages() {
	exe, err := os.Executable()
	if err != nil {
		return
	}
	relro, ok := relroRange(exe)
	if !ok {
		return
	}
	f, err := os.Open("/proc/self/maps")
	if err != nil {
		return
	}
	defer f.Close()
	var bias uint64
	biasKnown := false
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		// start-end perms offset dev inode path
		fields := strings.Fields(sc.Text())
		if len(fields) < 6 || fields[5] != exe {
			continue
		}
		lo, hi, ok := strings.Cut(fields[0], "-")
		if !ok {
			continue
		}
		start, err1 := strconv.ParseUint(lo, 16, 64)
		end, err2 := strconv.ParseUint(hi, 16, 64)
		off, err3 := strconv.ParseUint(fields[2], 16, 64)
		if err1 != nil || err2 != nil || err3 != nil || end <= start {
			continue
		}
		if !biasKnown {
			// The first mapping of the file maps its first segment: where the
			// executable was loaded, against the addresses it was linked at.
			bias, biasKnown = start-off-relro.firstLoad, true
		}
		if fields[1] != "r-xp" && fields[1] != "r--p" {
			continue
		}
		if relro.size > 0 && start < relro.end+bias && relro.start+bias < end {
			continue // relocated pages: the loader's, not the file's
		}
		// The raw call: the range is an address of ours, not a Go slice.
		_, _, _ = unix.Syscall(unix.SYS_MADVISE, uintptr(start), uintptr(end-start), unix.MADV_DONTNEED)
	}
}

type relroInfo struct {
	start, end, size uint64 // page-rounded, at link addresses
	firstLoad        uint64 // the link address of the segment at file offset 0, minus its offset
}

// relroRange reads the executable's PT_GNU_RELRO range; ok false when the file cannot
// be read (then nothing is released).
func relroRange(exe string) (relroInfo, bool) {
	f, err := elf.Open(exe)
	if err != nil {
		return relroInfo{}, false
	}
	defer f.Close()
	var r relroInfo
	first := true
	page := uint64(os.Getpagesize())
	for _, p := range f.Progs {
		switch p.Type {
		case elf.PT_LOAD:
			if first {
				r.firstLoad, first = p.Vaddr-p.Off, false
			}
		case elf.PT_GNU_RELRO:
			r.start = p.Vaddr &^ (page - 1)
			r.end = (p.Vaddr + p.Memsz + page - 1) &^ (page - 1)
			r.size = r.end - r.start
		}
	}
	return r, !first
}
