package main

import (
	"runtime/debug"
	"testing"

	"github.com/gantry-dev/gantry/internal/face"
)

// Print mode's start-up holds the collector off, bounded by a memory limit, and the
// usual pacing comes back once resumed.
func TestDeferGCResumes(t *testing.T) {
	t.Setenv("GOGC", "")
	t.Setenv("GOMEMLIMIT", "")
	before := debug.SetGCPercent(gcPercent)
	defer debug.SetGCPercent(before)
	limit := debug.SetMemoryLimit(-1)

	resume := deferGC()
	if p := debug.SetGCPercent(-1); p != -1 {
		t.Fatalf("GC percent during start-up is %d, want -1 (off)", p)
	}
	if l := debug.SetMemoryLimit(-1); l != startGCLimit {
		t.Fatalf("memory limit during start-up is %d, want %d", l, startGCLimit)
	}
	resume()
	resume() // a second call changes nothing
	if p := debug.SetGCPercent(gcPercent); p != gcPercent {
		t.Fatalf("GC percent after resume is %d, want %d", p, gcPercent)
	}
	if l := debug.SetMemoryLimit(-1); l != limit {
		t.Fatalf("memory limit after resume is %d, want %d", l, limit)
	}
}

// GOGC in the environment leaves the collector as it says.
func TestDeferGCLeavesGOGC(t *testing.T) {
	t.Setenv("GOGC", "100")
	before := debug.SetGCPercent(gcPercent)
	defer debug.SetGCPercent(before)
	resume := deferGC()
	defer resume()
	if p := debug.SetGCPercent(gcPercent); p != gcPercent {
		t.Fatalf("GC percent is %d with GOGC set, want it untouched (%d)", p, gcPercent)
	}
}

func TestFromModel(t *testing.T) {
	for _, c := range []struct {
		e    face.Event
		want bool
	}{
		{face.TextDelta{Text: "a"}, true},
		{face.ToolStarted{}, true},
		{face.TurnEnded{}, true},
		{face.SessionStarted{}, false},
		{face.Notice{Text: "n"}, false},
	} {
		if got := fromModel(c.e); got != c.want {
			t.Errorf("fromModel(%T) = %v, want %v", c.e, got, c.want)
		}
	}
}
