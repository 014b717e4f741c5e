package task

import (
	"context"
	"encoding/json"
	"errors"
	"reflect"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/gantry-dev/gantry/internal/tool"
)

// recorder keeps the events it is given as JSON, as the session store would; with
// fail set it refuses them.
type recorder struct {
	mu     sync.Mutex
	kinds  []string
	bodies []json.RawMessage
	fail   bool
}

func (r *recorder) AppendEvent(kind string, payload any) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.fail {
		return errors.New("disk full")
	}
	b, err := json.Marshal(payload)
	if err != nil {
		return err
	}
	r.kinds = append(r.kinds, kind)
	r.bodies = append(r.bodies, b)
	return nil
}

func (r *recorder) count() int {
	r.mu.Lock()
	defer r.mu.Unlock()
	return len(r.kinds)
}

func (r *recorder) payloads() []json.RawMessage {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]json.RawMessage(nil), r.bodies...)
}

type fixture struct {
	board *Board
	rec   *recorder
	tool  tool.Tool
	clock time.Time
}

// newFixture returns a board whose clock moves one minute per change.
func newFixture() *fixture {
	f := &fixture{rec: &recorder{}, clock: time.Date(2026, 5, 1, 9, 0, 0, 0, time.UTC)}
	f.board = NewBoard(f.rec)
	f.board.now = func() time.Time { f.clock = f.clock.Add(time.Minute); return f.clock }
	f.tool = Tool(f.board)
	return f
}

// call decodes and runs one task call; a refusal of Decode comes back as an error
// result.
func (f *fixture) call(t *testing.T, args string) tool.Result {
	t.Helper()
	inv, msg := f.tool.Decode(tool.Env{Cwd: "/w"}, json.RawMessage(args))
	if msg != "" {
		return tool.Fail(msg)
	}
	return inv.Run(context.Background())
}

// ok runs a call and fails the test on an error result.
func (f *fixture) ok(t *testing.T, args string) string {
	t.Helper()
	r := f.call(t, args)
	if r.IsError {
		t.Fatalf("task %s: %s", args, r.Text)
	}
	return r.Text
}

// refused runs a call that must be refused with one sentence containing want, and
// checks that the board and the store did not change.
func (f *fixture) refused(t *testing.T, args, want string) string {
	t.Helper()
	before, events := f.board.Tasks(), f.rec.count()
	r := f.call(t, args)
	if !r.IsError || !strings.Contains(r.Text, want) {
		t.Fatalf("task %s: %+v, want a refusal containing %q", args, r, want)
	}
	if !strings.HasSuffix(r.Text, ".") || strings.Contains(r.Text, ". ") || strings.Contains(r.Text, "\n") {
		t.Errorf("not one sentence: %q", r.Text)
	}
	if !reflect.DeepEqual(f.board.Tasks(), before) || f.rec.count() != events {
		t.Fatalf("the refused call %s changed the board", args)
	}
	return r.Text
}

func (f *fixture) status(t *testing.T, id string) string {
	t.Helper()
	for _, x := range f.board.Tasks() {
		if x.ID == id {
			return x.Status
		}
	}
	t.Fatalf("no task %s", id)
	return ""
}
