package main

import (
	"debug/elf"
	"errors"
	"os"

	"golang.org/x/sys/unix"

	"github.com/gantry-dev/gantry/internal/exepages"
)

// releaseInitPages unmaps the pages of gantry's own code and read-only data that
// package initialisation and the start-up touched, so that only what the session runs
// is mapped again (on first use, from the page cache). Initialisation reads code and
// tables that nothing uses afterwards (the model SDKs', goldmark's, SQLite's): 3.7 MB
// of the peak even with each page mapped alone (package exepages), and more where the
// kernel maps the 64 KB around each page read. Only the
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
	relro, err := relroRange(exe)
	if err != nil {
		return
	}
	maps, err := exepages.Mappings()
	if err != nil {
		return
	}
	// The first mapping of the file maps its first segment: where the executable was
	// loaded, against the addresses it was linked at.
	bias := uint64(maps[0].Start) - maps[0].Offset - relro.firstLoad
	for _, m := range maps {
		start, end := uint64(m.Start), uint64(m.End)
		if !m.ReadOnly() || relro.size > 0 && start < relro.end+bias && relro.start+bias < end {
			continue // relocated pages: the loader's, not the file's
		}
		// The raw call: the range is an address of ours, not a Go slice.
		_, _, _ = unix.Syscall(unix.SYS_MADVISE, m.Start, m.End-m.Start, unix.MADV_DONTNEED)
	}
}

type relroInfo struct {
	start, end, size uint64 // page-rounded, at link addresses
	firstLoad        uint64 // the link address of the segment at file offset 0, minus its offset
}

// relroRange reads the executable's PT_GNU_RELRO range.
func relroRange(exe string) (relroInfo, error) {
	f, err := elf.Open(exe)
	if err != nil {
		return relroInfo{}, err
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
	if first {
		return relroInfo{}, errors.New("the executable has no loadable segment")
	}
	return r, nil
}
