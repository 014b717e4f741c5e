package dap

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
)

// buildPrefix names the folders where adapters build the programs they debug
// (delve's __debug_bin): "gantry-debug-PID-…" in the temporary folder, PID being the
// gantry that made it, so that what a gantry killed by kill -9 left is found and
// removed by the next one.
const buildPrefix = "gantry-debug-"

// buildName is the name of the program an adapter builds, in its build folder.
const buildName = "__debug_bin"

// newBuildDir makes the build folder of one session.
func newBuildDir() (string, error) {
	dir, err := os.MkdirTemp("", buildPrefix+strconv.Itoa(os.Getpid())+"-")
	if err != nil {
		return "", fmt.Errorf("making a folder for the debugged program's build: %w", err)
	}
	return dir, nil
}

var sweepOnce sync.Once

// SweepStale removes, once a process, the build folders that gantries no longer
// running left behind (killed by kill -9, their sessions never closed), as stale
// cgroups are removed.
func SweepStale() {
	sweepOnce.Do(func() { sweepBuildDirs(os.TempDir()) })
}

// sweepBuildDirs removes the build folders in tmp whose gantry is gone.
func sweepBuildDirs(tmp string) {
	entries, _ := os.ReadDir(tmp)
	for _, e := range entries {
		rest, ok := strings.CutPrefix(e.Name(), buildPrefix)
		if !ok || !e.IsDir() {
			continue
		}
		pidText, _, _ := strings.Cut(rest, "-")
		pid, err := strconv.Atoi(pidText)
		if err != nil || pid <= 0 || pid == os.Getpid() || alive(pid) {
			continue
		}
		_ = os.RemoveAll(filepath.Join(tmp, e.Name())) // best effort: the next gantry tries again
	}
}

// alive tells whether process pid exists (one of another user's included).
func alive(pid int) bool {
	err := syscall.Kill(pid, 0)
	return err == nil || errors.Is(err, syscall.EPERM)
}
