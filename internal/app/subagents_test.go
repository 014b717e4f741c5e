package app

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/gantry-dev/gantry/internal/face"
	"github.com/gantry-dev/gantry/internal/llm"
	"github.com/gantry-dev/gantry/internal/llm/scripted"
	"github.com/gantry-dev/gantry/internal/testenv"
)

// router answers a subagent's requests with subStep and the parent's with its script,
// whatever order they come in.
type router struct {
	mu      sync.Mutex
	parent  []scripted.Step
	subStep func(req llm.Request) scripted.Step
	subReqs []llm.Request
}

func (r *router) Name() string { return "router" }

func (r *router) Stream(ctx context.Context, req llm.Request, emit func(llm.Delta)) (llm.Response, error) {
	r.mu.Lock()
	var step scripted.Step
	if strings.Contains(req.System, "You are a subagent") {
		r.subReqs = append(r.subReqs, req)
		sub := r.subStep
		r.mu.Unlock()
		step = sub(req)
	} else {
		step = scripted.Step{Text: "parent done"}
		if len(r.parent) > 0 {
			step, r.parent = r.parent[0], r.parent[1:]
		}
		r.mu.Unlock()
	}
	return scripted.New(step).Stream(ctx, req, emit)
}

func toolNames(req llm.Request) []string {
	var names []string
	for _, t := range req.Tools {
		names = append(names, t.Name)
	}
	return names
}

func openWith(t *testing.T, p llm.Provider, mode string) (*App, *[]face.Event) {
	t.Helper()
	dir := project(t, "", map[string]string{})
	var mu sync.Mutex
	var events []face.Event
	a, err := newStarted(Options{Cwd: dir, LLM: p, PermissionMode: mode}, func(e face.Event) { mu.Lock(); events = append(events, e); mu.Unlock() }, face.NoHuman{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { a.Close() })
	return a, &events
}

func TestReadOnlySubagentSchema(t *testing.T) {
	r := &router{
		parent: []scripted.Step{{Calls: []scripted.Call{{ID: "a", Name: "agent", Input: `{"prompt":"find where Add is defined","description":"find Add","read_only":true}`}}}},
		subStep: func(req llm.Request) scripted.Step {
			return scripted.Step{Text: "Add is in add.go:3", Usage: llm.Usage{InputTokens: 500, OutputTokens: 20}}
		},
	}
	a, events := openWith(t, r, "yolo")
	end := a.Run(context.Background(), "where is Add?", nil)
	if end.StopReason != "end_turn" {
		t.Fatalf("end %+v", end)
	}
	names := toolNames(r.subReqs[0])
	for _, absent := range []string{"agent", "bash", "write_file", "edit_file", "apply_patch", "register_hook"} {
		if slices.Contains(names, absent) {
			t.Errorf("read-only subagent got %s: %v", absent, names)
		}
	}
	if !slices.Contains(names, "read_file") || len(r.subReqs[0].Messages) != 1 {
		t.Errorf("subagent tools %v, history %d messages (want a fresh context)", names, len(r.subReqs[0].Messages))
	}
	h := a.agent.History()
	if got := h[2].Content[0]; got.Text != "Add is in add.go:3" || got.IsError {
		t.Errorf("the subagent's answer is not the result: %+v", got)
	}
	if u, _ := a.agent.Usage(); u.InputTokens < 500 {
		t.Errorf("the subagent's usage is not in the session's: %+v", u)
	}
	_ = events
}

func TestTwoBackgroundSubagents(t *testing.T) {
	r := &router{
		parent: []scripted.Step{
			{Calls: []scripted.Call{
				{ID: "a", Name: "agent", Input: `{"prompt":"count the Go files","description":"count go","run_in_background":true}`},
				{ID: "b", Name: "agent", Input: `{"prompt":"count the tests","description":"count tests","run_in_background":true}`},
			}},
			{Calls: []scripted.Call{{ID: "c", Name: "task_output", Input: `{"task_id":"bg_1"}`}, {ID: "d", Name: "task_output", Input: `{"task_id":"bg_2"}`}}},
		},
	}
	// A barrier: each subagent's model call waits until the other's has begun, so the
	// turn ends only if both are in flight at once.
	var pm sync.Mutex
	calls, alone := 0, 0
	both := make(chan struct{})
	r.subStep = func(req llm.Request) scripted.Step {
		pm.Lock()
		if calls++; calls == 2 {
			close(both)
		}
		pm.Unlock()
		select {
		case <-both:
		case <-time.After(20 * time.Second):
			pm.Lock()
			alone++
			pm.Unlock()
		}
		return scripted.Step{Text: "answer to: " + req.Messages[0].Text()}
	}
	a, _ := openWith(t, r, "yolo")
	end := a.Run(context.Background(), "count things", nil)
	if end.StopReason != "end_turn" {
		t.Fatalf("end %+v", end)
	}
	h := a.agent.History()
	var outputs []string
	for _, b := range h[4].Content {
		outputs = append(outputs, b.Text)
	}
	all := strings.Join(outputs, "\n")
	if !strings.Contains(all, "answer to: count the Go files") || !strings.Contains(all, "answer to: count the tests") {
		t.Fatalf("background results: %s", all)
	}
	pm.Lock()
	defer pm.Unlock()
	if calls != 2 || alone != 0 {
		t.Fatalf("the two subagents did not run at once: %d model calls, %d waited 20 s in vain for the other", calls, alone)
	}
}

func TestCancellingTheParentKillsTheSubagentsCommand(t *testing.T) {
	marker := "319.25"
	r := &router{
		parent: []scripted.Step{{Calls: []scripted.Call{{ID: "a", Name: "agent", Input: `{"prompt":"wait","description":"wait"}`}}}},
		subStep: func(req llm.Request) scripted.Step {
			return scripted.Step{Calls: []scripted.Call{{ID: "s", Name: "bash", Input: `{"command":"sleep ` + marker + `"}`}}}
		},
	}
	a, _ := openWith(t, r, "yolo")
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	// A watcher cancels the turn once the subagent's command runs, and tells when it
	// did; it gives up (zero time) after 20 s or when the turn ends first.
	cancelled := make(chan time.Time, 1)
	turnDone := make(chan struct{})
	go func() {
		defer cancel()
		tick := time.NewTicker(10 * time.Millisecond)
		defer tick.Stop()
		giveUp := time.After(20 * time.Second)
		for {
			if len(pidsWith(marker)) > 0 {
				cancelled <- time.Now()
				cancel()
				return
			}
			select {
			case <-tick.C:
			case <-giveUp:
				cancelled <- time.Time{}
				return
			case <-turnDone:
				cancelled <- time.Time{}
				return
			}
		}
	}()
	end := a.Run(ctx, "go", nil)
	close(turnDone)
	at := testenv.Recv(t, cancelled, testenv.Bound, "the watcher of the subagent's command")
	if at.IsZero() {
		t.Fatalf("the subagent's command (sleep %s) never ran; the turn ended %+v", marker, end)
	}
	// The command sleeps for over five minutes: a turn that waited for it would not end
	// within 15 s of the cancel.
	if end.StopReason != "cancelled" || time.Since(at) > 15*time.Second {
		t.Fatalf("end %+v, %v after the cancel", end, time.Since(at))
	}
	if pids := pidsWith(marker); len(pids) > 0 {
		for _, p := range pids {
			syscall.Kill(p, syscall.SIGKILL)
		}
		t.Fatalf("the subagent's command outlived the cancel: %v", pids)
	}
}

func pidsWith(s string) []int {
	entries, _ := os.ReadDir("/proc")
	var pids []int
	for _, e := range entries {
		pid, err := strconv.Atoi(e.Name())
		if err != nil || pid == os.Getpid() {
			continue
		}
		b, err := os.ReadFile(filepath.Join("/proc", e.Name(), "cmdline"))
		if err == nil && strings.Contains(strings.ReplaceAll(string(b), "\x00", " "), s) {
			pids = append(pids, pid)
		}
	}
	return pids
}
