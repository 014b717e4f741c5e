package vibe

import (
	"context"
	"encoding/json"
	"strings"
	"sync"
	"testing"
	"time"

	"go.uber.org/goleak"

	"github.com/gantry-dev/gantry/internal/tool"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

// fake is a worker whose runs end when the test says (release), answering with the
// prompts it was given.
type fake struct {
	mu      sync.Mutex
	prompts []string
	release chan string
	closed  bool
}

func (f *fake) Run(ctx context.Context, prompt string) (string, error) {
	f.mu.Lock()
	f.prompts = append(f.prompts, prompt)
	f.mu.Unlock()
	select {
	case s := <-f.release:
		return s + " (" + prompt + ")", nil
	case <-ctx.Done():
		return "", ctx.Err()
	}
}

func (f *fake) Close() error { f.mu.Lock(); f.closed = true; f.mu.Unlock(); return nil }

func board(t *testing.T) (*Board, map[string]*fake) {
	t.Helper()
	fakes := map[string]*fake{}
	var mu sync.Mutex
	b := New(Options{Make: func(s Spec) (Made, error) {
		f := &fake{release: make(chan string)}
		mu.Lock()
		fakes[s.ID] = f
		mu.Unlock()
		return Made{Worker: f, Model: "m-" + s.Tier}, nil
	}})
	t.Cleanup(func() {
		if err := b.Close(context.Background()); err != nil {
			t.Error(err)
		}
		for id, f := range fakes {
			if !f.closed {
				t.Errorf("worker %s was not closed", id)
			}
		}
	})
	return b, fakes
}

func run(t *testing.T, b *Board, name, input string) tool.Result {
	t.Helper()
	for _, tl := range b.Tools() {
		if tl.Name() == name {
			inv, msg := tl.Decode(tool.Env{Cwd: t.TempDir()}, json.RawMessage(input))
			if msg != "" {
				return tool.Fail(msg)
			}
			return inv.Run(context.Background())
		}
	}
	t.Fatalf("no tool %s", name)
	return tool.Result{}
}

func TestBadInput(t *testing.T) {
	b, _ := board(t)
	for _, c := range []struct{ tool, input, want string }{
		{"vibe_spawn", `{"label":"x"}`, "brief"},
		{"vibe_spawn", `{"brief":"do it"}`, "label"},
		{"vibe_spawn", `{"brief":"do it","label":"x","tier":"best"}`, `must be one of "fast", "good"`},
		{"vibe_send", `{"message":"more"}`, "worker_id"},
		{"vibe_send", `{"worker_id":"w1"}`, "message"},
		{"vibe_send", `{"worker_id":"w1","message":"more"}`, "none was spawned"},
		{"vibe_wait", `{"worker_id":"w1","timeout":-1}`, "negative"},
		{"vibe_wait", `{"worker_id":"w7"}`, "no worker"},
		{"vibe_kill", `{}`, "worker_id"},
		{"vibe_spawn", `not json`, "JSON"},
	} {
		r := run(t, b, c.tool, c.input)
		if !r.IsError || !strings.Contains(r.Text, c.want) {
			t.Errorf("%s %s: %v %q (want %q)", c.tool, c.input, r.IsError, r.Text, c.want)
		}
	}
	if r := run(t, b, "vibe_list", `{}`); r.IsError || !strings.Contains(r.Text, "No worker") {
		t.Errorf("an empty list: %q", r.Text)
	}
}

func TestSendWaitKill(t *testing.T) {
	b, fakes := board(t)
	if r := run(t, b, "vibe_spawn", `{"brief":"first","label":"one"}`); r.IsError || !strings.Contains(r.Text, "w1 [one], tier fast (model m-fast)") {
		t.Fatalf("spawn: %q", r.Text)
	}
	f := fakes["w1"]
	// A message to a running worker waits for the end of its run.
	if r := run(t, b, "vibe_send", `{"worker_id":"w1","message":"second"}`); !strings.Contains(r.Text, "when its current run ends") {
		t.Errorf("send while running: %q", r.Text)
	}
	// timeout_seconds, the former spelling, still works and says it is deprecated.
	if r := run(t, b, "vibe_wait", `{"worker_id":"w1","timeout_seconds":1}`); r.IsError || !strings.Contains(r.Text, "still running") ||
		!strings.HasSuffix(r.Text, "(Note: timeout_seconds is deprecated; use timeout.)") {
		t.Errorf("wait with a timeout: %q", r.Text)
	}
	f.release <- "did the first" // the run ends; the waiting message starts the next
	f.release <- "did the second"
	if r := run(t, b, "vibe_wait", `{"worker_id":"w1","timeout":5}`); !strings.Contains(r.Text, "did the second (second)") || !strings.Contains(r.Text, "done after") {
		t.Errorf("wait: %q", r.Text)
	}
	// An ended worker runs again with what is sent.
	if r := run(t, b, "vibe_send", `{"worker_id":"w1","message":"third"}`); !strings.Contains(r.Text, "runs again") {
		t.Errorf("send after the end: %q", r.Text)
	}
	if r := run(t, b, "vibe_kill", `{"worker_id":"w1"}`); r.IsError {
		t.Errorf("kill: %q", r.Text)
	}
	if r := run(t, b, "vibe_kill", `{"worker_id":"w1"}`); !r.IsError || !strings.Contains(r.Text, "not running (it is killed)") {
		t.Errorf("a second kill: %q", r.Text)
	}
	f.mu.Lock()
	prompts := strings.Join(f.prompts, ",")
	f.mu.Unlock()
	if prompts != "first,second,third" {
		t.Errorf("the worker's prompts: %s", prompts)
	}
	if r := run(t, b, "vibe_list", `{}`); !strings.Contains(r.Text, "w1 [one] tier fast (m-fast), killed") {
		t.Errorf("list: %q", r.Text)
	}
}

// A wait ends with its turn; the worker goes on.
func TestWaitCancelled(t *testing.T) {
	b, fakes := board(t)
	run(t, b, "vibe_spawn", `{"brief":"work","label":"w","tier":"good"}`)
	ctx, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
	defer cancel()
	var wait tool.Tool
	for _, tl := range b.Tools() {
		if tl.Name() == "vibe_wait" {
			wait = tl
		}
	}
	inv, _ := wait.Decode(tool.Env{}, json.RawMessage(`{"worker_id":"w1"}`))
	if r := inv.Run(ctx); !r.IsError || !strings.Contains(r.Text, "it goes on") {
		t.Errorf("a cancelled wait: %q", r.Text)
	}
	if s := b.List()[0]; s.Status != "running" || s.Model != "m-good" {
		t.Errorf("the worker after the wait: %+v", s)
	}
	_ = fakes
}
