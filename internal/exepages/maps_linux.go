package exepages

import (
	"errors"
	"os"
	"strconv"
	"strings"
)

// Mapping is one mapping of the executable's file.
type Mapping struct {
	Start, End uintptr // addresses
	Offset     uint64  // in the file
	Perms      string  // as /proc/self/maps shows them: r-xp, r--p, rw-p
}

// ReadOnly reports whether m maps code or read-only data.
func (m Mapping) ReadOnly() bool { return m.Perms == "r-xp" || m.Perms == "r--p" }

// Mappings lists the executable's mappings, from /proc/self/maps.
func Mappings() ([]Mapping, error) {
	exe, err := os.Executable()
	if err != nil {
		return nil, err
	}
	data, err := os.ReadFile("/proc/self/maps")
	if err != nil {
		return nil, err
	}
	var out []Mapping
	for line := range strings.Lines(string(data)) {
		// start-end perms offset dev inode path
		fields := strings.Fields(line)
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
		out = append(out, Mapping{Start: uintptr(start), End: uintptr(end), Offset: off, Perms: fields[1]})
	}
	if len(out) == 0 {
		return nil, errors.New("the executable is not among the process's mappings")
	}
	return out, nil
}
