//go:build gantryprof

package main

import (
	"os"
	"runtime/pprof"
)

func init() { startProfile = cpuProfile }

// cpuProfile writes a CPU profile to $GANTRY_CPUPROFILE when it is set. It is a
// development aid, built only with -tags gantryprof (docs/benchmarks.md), so the
// profiler costs the shipped binary nothing. It returns the function that stops it.
func cpuProfile() func() {
	path := os.Getenv("GANTRY_CPUPROFILE")
	if path == "" {
		return func() {}
	}
	f, err := os.Create(path)
	if err != nil {
		return func() {}
	}
	if err := pprof.StartCPUProfile(f); err != nil {
		f.Close()
		return func() {}
	}
	return func() {
		pprof.StopCPUProfile()
		f.Close()
	}
}
