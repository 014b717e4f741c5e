package todo

import (
	"context"
	"encoding/json"
	"errors"
	"reflect"
	"strings"
	"sync"
	"testing"

	"github.com/gantry-dev/gantry/internal/face"
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

func (r *recorder) payloads() []json.RawMessage {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]json.RawMessage(nil), r.bodies...)
}

// sink collects the face events.
type sink struct {
	mu sync.Mutex
	ev []face.Event
}

func (s *sink) emit(e face.Event) { s.mu.Lock(); s.ev = append(s.ev, e); s.mu.Unlock() }

func (s *sink) lists() [][]face.TodoItem {
	s.mu.Lock()
	defer s.mu.Unlock()
	var out [][]face.TodoItem
	for _, e := range s.ev {
		out = append(out, e.(face.TodoList).Items)
	}
	return out
}

type fixture struct {
	list  *List
	rec   *recorder
	sink  *sink
	write tool.Tool
	read  tool.Tool
}

func newFixture() *fixture {
	f := &fixture{rec: &recorder{}, sink: &sink{}}
	f.list = NewList(f.rec, f.sink.emit)
	ts := Tools(f.list)
	f.write, f.read = ts[0], ts[1]
	return f
}

// call decodes and runs one call; a refusal of Decode comes back as an error result.
func call(t *testing.T, tl tool.Tool, args string) tool.Result {
	t.Helper()
	inv, msg := tl.Decode(tool.Env{Cwd: "/w"}, json.RawMessage(args))
	if msg != "" {
		return tool.Fail(msg)
	}
	return inv.Run(context.Background())
}

// mustWrite runs todo_write and fails the test on an error result.
func (f *fixture) mustWrite(t *testing.T, args string) tool.Result {
	t.Helper()
	r := call(t, f.write, args)
	if r.IsError {
		t.Fatalf("todo_write %s: %s", args, r.Text)
	}
	return r
}

func items(pairs ...string) []face.TodoItem {
	var out []face.TodoItem
	for _, p := range pairs {
		f := strings.SplitN(p, "|", 3)
		out = append(out, face.TodoItem{ID: f[0], Content: f[1], Status: f[2]})
	}
	return out
}

func sameItems(t *testing.T, what string, got, want []face.TodoItem) {
	t.Helper()
	if len(got) == 0 && len(want) == 0 {
		return
	}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("%s:\n got %+v\nwant %+v", what, got, want)
	}
}

// oneSentence checks that a refusal is a single sentence ending with a full stop.
func oneSentence(t *testing.T, msg string) {
	t.Helper()
	if !strings.HasSuffix(msg, ".") || strings.Count(msg, ". ") > 0 || strings.Contains(msg, "\n") {
		t.Errorf("not one sentence: %q", msg)
	}
}
