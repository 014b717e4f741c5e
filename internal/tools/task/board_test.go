package task

import (
	"encoding/json"
	"fmt"
	"reflect"
	"strings"
	"sync"
	"testing"

	"github.com/gantry-dev/gantry/internal/testenv"
)

func TestEveryChangeRecordsTheWholeBoard(t *testing.T) {
	f := newFixture()
	f.ok(t, `{"action":"create","title":"A"}`)
	f.ok(t, `{"action":"create","title":"B","blocked_by":["t1"]}`)
	f.ok(t, `{"action":"update","task_id":"t1","status":"in_progress"}`)
	f.ok(t, `{"action":"get","task_id":"t1"}`)
	f.ok(t, `{"action":"list"}`)
	if f.rec.count() != 3 {
		t.Fatalf("%d events, want one per change", f.rec.count())
	}
	for _, k := range f.rec.kinds {
		if k != "task_board" {
			t.Fatalf("kind %q", k)
		}
	}
	ps := f.rec.payloads()
	if got := FromEvents(ps[:1]); len(got) != 1 || got[0].Title != "A" {
		t.Errorf("first event: %+v", got)
	}
	if got := FromEvents(ps); !reflect.DeepEqual(got, f.board.Tasks()) {
		t.Errorf("last event:\n got %+v\nwant %+v", got, f.board.Tasks())
	}
}

func TestStoreFailureChangesNothing(t *testing.T) {
	f := newFixture()
	f.ok(t, `{"action":"create","title":"A"}`)
	f.rec.fail = true
	for _, args := range []string{`{"action":"create","title":"B"}`, `{"action":"update","task_id":"t1","status":"completed"}`} {
		r := f.call(t, args)
		if !r.IsError || !strings.Contains(r.Text, "disk full") || !strings.Contains(r.Text, "nothing changed") {
			t.Fatalf("%s: %+v", args, r)
		}
	}
	if ts := f.board.Tasks(); len(ts) != 1 || ts[0].Status != Pending {
		t.Fatalf("board %+v", ts)
	}
	// Reading still works.
	f.ok(t, `{"action":"list"}`)
}

func TestNilRecorder(t *testing.T) {
	b := NewBoard(nil)
	f := &fixture{board: b, rec: &recorder{}, tool: Tool(b)}
	f.ok(t, `{"action":"create","title":"A"}`)
	if len(b.Tasks()) != 1 {
		t.Fatal("not created")
	}
}

func TestResume(t *testing.T) {
	f := newFixture()
	f.ok(t, `{"action":"create","title":"A","description":"first"}`)
	f.ok(t, `{"action":"create","title":"B","blocked_by":["t1"]}`)
	f.ok(t, `{"action":"create","title":"C"}`)
	f.ok(t, `{"action":"update","task_id":"t1","status":"completed"}`)
	want := f.board.Tasks()

	// The session store hands back the payloads; a broken one at the end is skipped.
	payloads := append(f.rec.payloads(), json.RawMessage(`{"tasks":[`))
	g := newFixture()
	g.board.Restore(FromEvents(payloads))
	got := g.board.Tasks()
	if len(got) != len(want) {
		t.Fatalf("restored %+v", got)
	}
	for i := range want {
		if got[i].ID != want[i].ID || got[i].Title != want[i].Title || got[i].Description != want[i].Description ||
			got[i].Status != want[i].Status || !reflect.DeepEqual(got[i].BlockedBy, want[i].BlockedBy) ||
			!got[i].Created.Equal(want[i].Created) || !got[i].Updated.Equal(want[i].Updated) {
			t.Fatalf("task %d restored as %+v, was %+v", i, got[i], want[i])
		}
	}
	if g.rec.count() != 0 {
		t.Fatal("Restore recorded an event")
	}
	// The rules and the ids go on from where they were.
	g.refused(t, `{"action":"update","task_id":"t1","status":"pending"}`, "cannot go back")
	if got := g.ok(t, `{"action":"create","title":"D"}`); !strings.HasPrefix(got, "Created t4: D.") {
		t.Errorf("after resume: %s", got)
	}
	if got := g.ok(t, `{"action":"list","ready":true}`); !strings.Contains(got, "t2 [pending] B") {
		t.Errorf("ready after resume: %s", got)
	}

	if FromEvents(nil) != nil || FromEvents([]json.RawMessage{json.RawMessage(`[]`)}) != nil {
		t.Error("no board must give nil")
	}
}

func TestTasksIsADeepCopy(t *testing.T) {
	f := newFixture()
	f.ok(t, `{"action":"create","title":"A"}`)
	f.ok(t, `{"action":"create","title":"B","blocked_by":["t1"]}`)
	ts := f.board.Tasks()
	ts[1].BlockedBy[0] = "t9"
	ts[0].Title = "changed"
	if again := f.board.Tasks(); again[1].BlockedBy[0] != "t1" || again[0].Title != "A" {
		t.Fatalf("the board was changed through a copy: %+v", again)
	}
}

// TestConcurrentUse creates and updates tasks from many goroutines (go test -race):
// ids stay unique, every change is recorded, and the last event holds the final board.
func TestConcurrentUse(t *testing.T) {
	f := newFixture()
	const workers, each = 8, 15
	var wg sync.WaitGroup
	for w := range workers {
		wg.Go(func() {
			for i := range each {
				r := f.call(t, fmt.Sprintf(`{"action":"create","title":"w%d-%d"}`, w, i))
				if r.IsError {
					t.Error(r.Text)
					return
				}
				id := strings.TrimSuffix(strings.Fields(r.Text)[1], ":")
				f.call(t, `{"action":"update","task_id":"`+id+`","status":"in_progress"}`)
				f.call(t, `{"action":"list","ready":true}`)
				f.call(t, `{"action":"get","task_id":"`+id+`"}`)
			}
		})
	}
	testenv.Wait(t, &wg, testenv.Bound, "the workers")
	ts := f.board.Tasks()
	if len(ts) != workers*each {
		t.Fatalf("%d tasks", len(ts))
	}
	seen := map[string]bool{}
	for _, x := range ts {
		if seen[x.ID] || x.Status != InProgress {
			t.Fatalf("task %+v (repeated or not started)", x)
		}
		seen[x.ID] = true
	}
	if f.rec.count() != 2*workers*each {
		t.Fatalf("%d events", f.rec.count())
	}
	if !reflect.DeepEqual(FromEvents(f.rec.payloads()), ts) {
		t.Fatal("the last event is not the final board")
	}
}
