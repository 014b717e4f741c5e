package app

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/gantry-dev/gantry/internal/face"
	"github.com/gantry-dev/gantry/internal/llm"
	"github.com/gantry-dev/gantry/internal/llm/scripted"
	"github.com/gantry-dev/gantry/internal/procgroup/proctest"
	"github.com/gantry-dev/gantry/internal/session"
)

// vibeModel answers the session's requests from its script, and each worker's by its
// brief (the first message of the worker's conversation), whatever order they come in.
type vibeModel struct {
	mu      sync.Mutex
	main    []scripted.Step
	worker  func(brief string, req llm.Request) scripted.Step
	workers []llm.Request
	mains   []llm.Request
}

func (m *vibeModel) Name() string { return "vibe-model" }

func (m *vibeModel) Stream(ctx context.Context, req llm.Request, emit func(llm.Delta)) (llm.Response, error) {
	m.mu.Lock()
	var step scripted.Step
	if strings.Contains(req.System, "You are a background worker") {
		m.workers = append(m.workers, req)
		f := m.worker
		m.mu.Unlock()
		step = f(firstText(req), req)
	} else {
		m.mains = append(m.mains, req)
		step = scripted.Step{Text: "main done"}
		if len(m.main) > 0 {
			step, m.main = m.main[0], m.main[1:]
		}
		m.mu.Unlock()
	}
	return scripted.New(step).Stream(ctx, req, emit)
}

func firstText(req llm.Request) string {
	if len(req.Messages) == 0 {
		return ""
	}
	for _, b := range req.Messages[0].Content {
		if b.Type == llm.BlockText {
			return b.Text
		}
	}
	return ""
}

// lastText is the text of the newest user message of req (a result or a prompt).
func lastUser(req llm.Request) string {
	var out strings.Builder
	m := req.Messages[len(req.Messages)-1]
	for _, b := range m.Content {
		out.WriteString(b.Text)
	}
	return out.String()
}

func call(id, name, input string) scripted.Step {
	return scripted.Step{Calls: []scripted.Call{{ID: id, Name: name, Input: input}}}
}

// Two workers, one fast and one good: one does its work (a write allowed, a bash
// refused by a deny rule), is waited for, then given more brief and run again; the
// other runs until it is killed. vibe_list says what each is; nothing is left at Close.
func TestVibeWorkers(t *testing.T) {
	dir := project(t, "models:\n  fast: fast-model\n  good: good-model\npermissions:\n  deny:\n    - 'bash:rm( .*)?'\n", map[string]string{"keep.txt": "keep\n"})
	m := &vibeModel{
		main: []scripted.Step{
			call("s1", "vibe_spawn", `{"brief":"A: write a.txt","label":"writer","tier":"fast"}`),
			call("s2", "vibe_spawn", `{"brief":"B: think forever","label":"thinker","tier":"good"}`),
			call("w1", "vibe_wait", `{"worker_id":"w1","timeout":30}`),
			call("l1", "vibe_list", `{}`),
			call("k1", "vibe_kill", `{"worker_id":"w2"}`),
			call("m1", "vibe_send", `{"worker_id":"w1","message":"A2: now write b.txt"}`),
			call("w2", "vibe_wait", `{"worker_id":"w1","timeout":30}`),
			call("l2", "vibe_list", `{}`),
			call("x1", "vibe_kill", `{"worker_id":"w9"}`),
			{Text: "all workers handled"},
		},
		worker: func(brief string, req llm.Request) scripted.Step {
			last := lastUser(req)
			switch {
			case strings.HasPrefix(brief, "B:"):
				return scripted.Step{Text: "thinking…", BlockUntilCancel: true}
			case strings.HasPrefix(last, "A2:"):
				return call("wb", "write_file", `{"path":"b.txt","content":"b\n"}`)
			case strings.HasPrefix(last, "A:"):
				return scripted.Step{Calls: []scripted.Call{
					{ID: "wa", Name: "write_file", Input: `{"path":"a.txt","content":"a\n"}`},
					{ID: "rm", Name: "bash", Input: `{"command":"rm keep.txt"}`},
				}}
			case strings.Contains(last, "b.txt"):
				return scripted.Step{Text: "wrote b.txt"}
			}
			return scripted.Step{Text: "wrote a.txt; rm was refused"}
		},
	}
	var mu sync.Mutex
	var events []face.Event
	a, err := newStarted(Options{Cwd: dir, LLM: m, PermissionMode: "accept-edits", Vibe: true},
		func(e face.Event) { mu.Lock(); events = append(events, e); mu.Unlock() }, face.NoHuman{})
	if err != nil {
		t.Fatal(err)
	}
	closed := false
	defer func() {
		if !closed {
			a.Close()
		}
	}()
	if !slices.Contains(a.ToolNames(), "vibe_spawn") {
		t.Fatalf("vibe mode declares no vibe tools: %v", a.ToolNames())
	}
	end := a.Run(context.Background(), "split the work", nil)
	if end.StopReason != "end_turn" || end.Text != "all workers handled" {
		t.Fatalf("end %+v", end)
	}
	results := map[string]string{}
	mu.Lock()
	for _, e := range events {
		if f, ok := e.(face.ToolFinished); ok {
			results[f.CallID] = f.Result.Text
		}
	}
	var workerLines []string
	for _, e := range events {
		if s, ok := e.(face.FromSubagent); ok {
			if st, ok := s.Event.(face.ToolStarted); ok {
				workerLines = append(workerLines, s.Label+": "+st.Call.Name)
			}
		}
	}
	mu.Unlock()
	for id, want := range map[string]string{
		"s1": "Started worker w1 [writer], tier fast (model fast-model)",
		"s2": "Started worker w2 [thinker], tier good (model good-model)",
		"w1": "wrote a.txt; rm was refused",
		"k1": "Worker w2 stopped",
		"m1": "had ended; it runs again",
		"w2": "wrote b.txt",
		"x1": `There is no worker "w9"; the workers are w1, w2.`,
	} {
		if !strings.Contains(results[id], want) {
			t.Errorf("%s: %q, want %q", id, results[id], want)
		}
	}
	if l := results["l1"]; !strings.Contains(l, "w1 [writer] tier fast (fast-model), done") || !strings.Contains(l, "w2 [thinker] tier good (good-model), running") {
		t.Errorf("first vibe_list:\n%s", l)
	}
	if l := results["l2"]; !strings.Contains(l, "w1 [writer] tier fast (fast-model), done") || !strings.Contains(l, "wrote b.txt") || !strings.Contains(l, "w2 [thinker] tier good (good-model), killed") {
		t.Errorf("second vibe_list:\n%s", l)
	}
	for _, f := range []string{"a.txt", "b.txt", "keep.txt"} {
		if _, err := os.Stat(filepath.Join(dir, f)); err != nil {
			t.Errorf("%s: %v", f, err)
		}
	}
	if !slices.Contains(workerLines, "writer: write_file") || !slices.Contains(workerLines, "writer: bash") {
		t.Errorf("the worker's calls shown: %v", workerLines)
	}
	// The worker's requests: its own model, a fresh context, no vibe tools, and the
	// refusal of its bash in what it read.
	m.mu.Lock()
	var sawRefusal, sawModels bool
	models := map[string]bool{}
	for _, req := range m.workers {
		models[req.Model] = true
		if slices.Contains(toolNames(req), "vibe_spawn") {
			t.Errorf("a worker was given the vibe tools")
		}
		if strings.Contains(lastUser(req), "bash was refused") {
			sawRefusal = true
		}
	}
	sawModels = models["fast-model"] && models["good-model"]
	m.mu.Unlock()
	if !sawRefusal || !sawModels {
		t.Errorf("worker requests: refusal seen %v, models %v", sawRefusal, models)
	}
	// Each worker is a stored session of its own, linked to this one; --continue
	// does not pick one.
	st, err := session.Open(StorePath(Options{}))
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	list, err := st.List(0)
	if err != nil {
		t.Fatal(err)
	}
	var children int
	for _, in := range list {
		if in.Parent == a.SessionID() {
			children++
		}
	}
	if children != 2 {
		t.Errorf("%d worker sessions linked to the session: %+v", children, list)
	}
	if last, err := st.Last(dir); err != nil || last.ID() != a.SessionID() {
		t.Errorf("--continue would pick %v (%v), not the session", last, err)
	}
	if err := a.Close(); err != nil {
		t.Fatal(err)
	}
	closed = true
}

// A worker still running when the session closes is stopped, and its command with it;
// a tier with no model runs on the session's, and says so.
func TestVibeWorkerStoppedAtClose(t *testing.T) {
	dir := project(t, "", map[string]string{})
	marker := fmt.Sprintf("300.%d", time.Now().UnixNano())
	m := &vibeModel{
		main: []scripted.Step{call("s1", "vibe_spawn", `{"brief":"B: forever","label":"forever"}`), {Text: "spawned"}},
		worker: func(string, llm.Request) scripted.Step {
			return call("b1", "bash", `{"command":"sleep `+marker+`; echo slept"}`)
		},
	}
	var notices []string
	var mu sync.Mutex
	a, err := newStarted(Options{Cwd: dir, LLM: m, Vibe: true, PermissionMode: "yolo"}, func(e face.Event) {
		if n, ok := e.(face.Notice); ok {
			mu.Lock()
			notices = append(notices, n.Text)
			mu.Unlock()
		}
	}, face.NoHuman{})
	if err != nil {
		t.Fatal(err)
	}
	if end := a.Run(context.Background(), "go", nil); end.Text != "spawned" {
		t.Fatalf("end %+v", end)
	}
	// The worker outlives the turn, its command running.
	deadline := time.Now().Add(10 * time.Second)
	for !proctest.Running(marker) {
		if time.Now().After(deadline) {
			t.Fatalf("the worker's command never ran: %+v", a.Workers())
		}
		time.Sleep(10 * time.Millisecond)
	}
	if s := a.Workers()[0]; s.Status != "running" {
		t.Fatalf("after the turn the worker is %s", s.Status)
	}
	if err := a.Close(); err != nil {
		t.Fatal(err)
	}
	if s := a.Workers()[0]; s.Status != "killed" {
		t.Errorf("after Close the worker is %s", s.Status)
	}
	if proctest.Running(marker) {
		t.Error("the worker's command outlived the session")
	}
	mu.Lock()
	defer mu.Unlock()
	for _, want := range []string{"models.fast is not set", "1 vibe worker(s) still running are stopped"} {
		if !slices.ContainsFunc(notices, func(n string) bool { return strings.Contains(n, want) }) {
			t.Errorf("no notice %q: %q", want, notices)
		}
	}
}

// Out of vibe mode the vibe tools are not declared; SetVibe turns them on and tells
// the model with the next prompt.
func TestSetVibe(t *testing.T) {
	dir := project(t, "", map[string]string{})
	m := &vibeModel{main: []scripted.Step{{Text: "ok"}}}
	a := open(t, Options{Cwd: dir, LLM: m})
	if slices.Contains(a.ToolNames(), "vibe_spawn") {
		t.Fatal("vibe tools declared out of vibe mode")
	}
	a.SetVibe(true)
	if !a.Vibe() || !slices.Contains(a.ToolNames(), "vibe_list") {
		t.Fatalf("vibe on: %v", a.ToolNames())
	}
	a.Run(context.Background(), "hello", nil)
	m.mu.Lock()
	defer m.mu.Unlock()
	if len(m.mains) != 1 || !strings.Contains(lastUser(m.mains[0]), "turned vibe mode on") || !slices.Contains(toolNames(m.mains[0]), "vibe_spawn") {
		t.Errorf("the model was not told: %q", lastUser(m.mains[0]))
	}
}
