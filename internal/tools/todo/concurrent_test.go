package todo

import (
	"fmt"
	"sync"
	"testing"

	"github.com/gantry-dev/gantry/internal/testenv"
)

// TestConcurrentWrites runs merge writes and reads from many goroutines (go test
// -race): every write lands, and the store and the face see the lists in the order
// they were made, so the last event holds the final list.
func TestConcurrentWrites(t *testing.T) {
	f := newFixture()
	const workers, each = 8, 20
	var wg sync.WaitGroup
	for w := range workers {
		wg.Go(func() {
			for i := range each {
				args := fmt.Sprintf(`{"merge":true,"todos":[{"id":"w%d-%d","content":"item %d of %d"}]}`, w, i, i, w)
				if r := call(t, f.write, args); r.IsError {
					t.Error(r.Text)
				}
				_ = call(t, f.read, `{}`)
				_ = f.list.Items()
			}
		})
	}
	testenv.Wait(t, &wg, testenv.Bound, "the writers")
	final := f.list.Items()
	if len(final) != workers*each {
		t.Fatalf("%d items, want %d", len(final), workers*each)
	}
	if len(f.rec.kinds) != workers*each || len(f.sink.lists()) != workers*each {
		t.Fatalf("%d events, %d lists", len(f.rec.kinds), len(f.sink.lists()))
	}
	sameItems(t, "last recorded list", FromEvents(f.rec.payloads()), final)
	lists := f.sink.lists()
	for i, l := range lists {
		if len(l) != i+1 {
			t.Fatalf("list %d shown with %d items: out of order", i, len(l))
		}
	}
}

// TestConcurrentInProgress races writers that each try to start their own item: the
// rule holds whatever the interleaving.
func TestConcurrentInProgress(t *testing.T) {
	f := newFixture()
	var wg sync.WaitGroup
	for w := range 10 {
		wg.Go(func() {
			call(t, f.write, fmt.Sprintf(`{"merge":true,"todos":[{"id":"%d","content":"c","status":"in_progress"}]}`, w))
		})
	}
	testenv.Wait(t, &wg, testenv.Bound, "the writers")
	if n := len(inProgress(f.list.Items())); n != 1 {
		t.Fatalf("%d items in progress", n)
	}
	if len(f.list.Items()) != 1 {
		t.Fatalf("only the first writer may have succeeded: %+v", f.list.Items())
	}
}
