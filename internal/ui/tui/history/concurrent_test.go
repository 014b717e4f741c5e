package history

import (
	"fmt"
	"sync"
	"testing"

	"github.com/gantry-dev/gantry/internal/testenv"
)

func TestConcurrentAdd(t *testing.T) {
	path := histPath(t)
	a, b := open(t, path), open(t, path)
	const goroutines, each = 8, 50
	long := make([]byte, 8192) // lines larger than a pipe buffer
	for i := range long {
		long[i] = 'a' + byte(i%26)
	}
	var wg sync.WaitGroup
	errs := make(chan error, goroutines*each)
	for g := range goroutines {
		h := a
		if g%2 == 1 {
			h = b
		}
		wg.Go(func() {
			for i := range each {
				text := fmt.Sprintf("g%d i%d", g, i)
				if i%10 == 0 {
					text += " " + string(long)
				}
				if err := h.Add(text, "/a"); err != nil {
					errs <- err
				}
			}
		})
	}
	testenv.Wait(t, &wg, testenv.Bound, "the writers")
	close(errs)
	for err := range errs {
		t.Fatal(err)
	}
	lines := fileLines(t, path)
	if len(lines) != goroutines*each {
		t.Fatalf("%d lines, want %d", len(lines), goroutines*each)
	}
	seen := make(map[string]bool)
	for _, r := range lines {
		seen[r.Text] = true
	}
	if len(seen) != goroutines*each {
		t.Fatalf("%d distinct lines, want %d", len(seen), goroutines*each)
	}
	if n := len(open(t, path).Entries("")); n != goroutines*each {
		t.Fatalf("reloaded %d entries", n)
	}
}

// TestConcurrentCompaction has two History values on one file, each passing 2000 lines
// on its own count, so that each compacts the file while the other appends: no line may
// be broken and none may be lost, so what remains of each writer is a run of its newest
// lines without a gap.
func TestConcurrentCompaction(t *testing.T) {
	path := histPath(t)
	a, b := open(t, path), open(t, path)
	const each = compactAt + 300
	var wg sync.WaitGroup
	for name, h := range map[string]*History{"a": a, "b": b} {
		wg.Go(func() {
			for i := range each {
				if err := h.Add(fmt.Sprintf("%s %d", name, i), "/a"); err != nil {
					t.Error(err)
					return
				}
			}
		})
	}
	testenv.Wait(t, &wg, testenv.Bound, "the writers")
	lines := fileLines(t, path)
	if len(lines) >= 2*each {
		t.Fatalf("%d lines: never compacted", len(lines))
	}
	next := map[string]int{}
	for _, r := range lines {
		var name string
		var i int
		if _, err := fmt.Sscanf(r.Text, "%s %d", &name, &i); err != nil {
			t.Fatalf("line %q: %v", r.Text, err)
		}
		if n, ok := next[name]; ok && i != n {
			t.Fatalf("writer %s: line %d follows line %d: lines were lost", name, i, n-1)
		}
		next[name] = i + 1
	}
	if next["a"] != each || next["b"] != each {
		t.Fatalf("the newest lines are missing: %v", next)
	}
}
