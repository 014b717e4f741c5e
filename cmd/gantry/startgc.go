package main

import (
	"os"
	"runtime/debug"
	"sync"
	"time"

	"github.com/gantry-dev/gantry/internal/face"
)

// gcPercent is gantry's GOGC: its live heap is small, and a GC at 75% growth keeps
// about 0.8 MB less resident than Go's 100% at no measurable cost per turn (at 50% it
// cost 0.2 ms a turn; docs/benchmarks.md). GOGC still wins.
const gcPercent = 75

// Print mode's start-up allocates a few MB before its first request, and Go's first
// collection (at a 3 MB heap with gcPercent) fell in it on most runs: on two busy
// cores it cost the first request about 10 ms (docs/benchmarks.md, peer bench). Until
// the model's answer starts, the heap is collected only when it nears startGCLimit;
// the usual pacing comes back then, or after startGCMax at the latest.
const (
	startGCLimit = 32 << 20
	startGCMax   = 2 * time.Second
)

// deferGC holds garbage collection off until the returned function is called (once
// or more), or startGCMax has passed. GOGC or GOMEMLIMIT in the environment leave it
// alone.
func deferGC() (resume func()) {
	if os.Getenv("GOGC") != "" || os.Getenv("GOMEMLIMIT") != "" {
		return func() {}
	}
	limit := debug.SetMemoryLimit(-1) // a negative value reads it
	debug.SetMemoryLimit(startGCLimit)
	percent := debug.SetGCPercent(-1)
	var once sync.Once
	restore := func() {
		once.Do(func() {
			debug.SetGCPercent(percent)
			debug.SetMemoryLimit(limit)
		})
	}
	t := time.AfterFunc(startGCMax, restore)
	return func() {
		t.Stop()
		restore()
	}
}

// fromModel says whether e comes of the model's answer (or its failure): once one
// does, the request has been sent.
func fromModel(e face.Event) bool {
	switch e.(type) {
	case face.TextDelta, face.ThinkingDelta, face.ToolStarted, face.Retry, face.TurnUsage, face.StepEnded, face.TurnEnded:
		return true
	}
	return false
}
