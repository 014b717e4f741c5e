package app

import (
	"context"
	"encoding/json"
	"strings"
	"sync"
	"testing"

	"github.com/gantry-dev/gantry/internal/dap"
	"github.com/gantry-dev/gantry/internal/face"
	"github.com/gantry-dev/gantry/internal/llm"
	"github.com/gantry-dev/gantry/internal/llm/scripted"
	"github.com/gantry-dev/gantry/internal/procgroup/proctest"
	"github.com/gantry-dev/gantry/internal/testenv"
)

// needDebianPython ends a test that needs /usr/bin/python3 (with debugpy) as
// testenv.Missing says when it is not here.
func needDebianPython(t *testing.T) string {
	t.Helper()
	const python = "/usr/bin/python3"
	testenv.NeedFile(t, python, "Debian's Python")
	return python
}

func evalInput(code string) string {
	b, _ := json.Marshal(map[string]any{"code": code, "description": "a cell of the test"})
	return string(b)
}

// results are the texts of the tool results the events carry, by call id.
type results struct {
	mu   sync.Mutex
	byID map[string]string
}

func (r *results) sink(e face.Event) {
	if s, ok := e.(face.FromSubagent); ok {
		e = s.Event
	}
	if f, ok := e.(face.ToolFinished); ok {
		r.mu.Lock()
		r.byID[f.CallID] = f.Result.Text
		r.mu.Unlock()
	}
}

func (r *results) get(id string) string {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.byID[id]
}

// A subagent's eval runs in a kernel of its own: it does not see the parent's
// variables, its kernel ends with its run, and the parent's keeps its state.
func TestSubagentHasItsOwnKernel(t *testing.T) {
	python := needDebianPython(t)
	r := &router{
		parent: []scripted.Step{
			call("c1", "eval", evalInput("secret = 41")),
			call("a1", "agent", `{"prompt":"look for secret","description":"look for secret"}`),
			call("c2", "eval", evalInput("secret + 1")),
		},
		subStep: func(req llm.Request) scripted.Step {
			if len(req.Messages) == 1 {
				return call("s1", "eval", evalInput("import sys\nprint('secret' in globals(), sys.argv[0])"))
			}
			return scripted.Step{Text: "sub saw: " + lastResult(req.Messages)}
		},
	}
	dir := project(t, "eval:\n  python: "+python+"\n", map[string]string{})
	res := &results{byID: map[string]string{}}
	a, err := newStarted(Options{Cwd: dir, LLM: r, PermissionMode: "yolo"}, res.sink, face.NoHuman{})
	if err != nil {
		t.Fatal(err)
	}
	defer a.Close()
	if end := a.Run(context.Background(), "go", nil); end.StopReason != "end_turn" {
		t.Fatalf("end %+v", end)
	}
	seen := strings.Fields(res.get("s1"))
	if len(seen) < 2 || seen[0] != "False" {
		t.Fatalf("the subagent's cell gave %q: it saw the parent's variables", res.get("s1"))
	}
	if driver := seen[1]; proctest.Running(driver) {
		t.Errorf("the subagent's kernel (%s) outlived its run", driver)
	}
	if got := res.get("c2"); !strings.Contains(got, "42") {
		t.Errorf("the parent's kernel lost its state: %q", got)
	}
}

// A vibe worker's debug session is its own: its terminate ends nothing of the
// parent's, whose program stays stopped at its breakpoint; its eval does not see the
// parent's variables either.
func TestVibeWorkerHasItsOwnDebugSession(t *testing.T) {
	python := needDebianPython(t)
	for _, s := range dap.Defaults() {
		if s.ID != "debugpy" {
			continue
		}
		if u := dap.Check(context.Background(), &s, t.TempDir(), python, nil); u.Why != "" {
			testenv.Missing(t, u.Why)
		}
	}
	dir := project(t, "debug:\n  python: "+python+"\neval:\n  python: "+python+"\n", map[string]string{"prog.py": "x = 1\nprint('x is', x)\n"})
	m := &vibeModel{
		main: []scripted.Step{
			call("c1", "eval", evalInput("secret = 41")),
			call("b1", "debug", `{"operation":"breakpoints","file":"prog.py","lines":[2]}`),
			call("l1", "debug", `{"operation":"launch","program":"prog.py"}`),
			call("s1", "vibe_spawn", `{"brief":"T: end the debug session","label":"terminator","tier":"fast"}`),
			call("w1", "vibe_wait", `{"worker_id":"w1","timeout":60}`),
			call("st", "debug", `{"operation":"status"}`),
			call("t1", "debug", `{"operation":"terminate"}`),
		},
		worker: func(brief string, req llm.Request) scripted.Step {
			switch len(req.Messages) {
			case 1:
				return scripted.Step{Calls: []scripted.Call{
					{ID: "wt", Name: "debug", Input: `{"operation":"terminate"}`},
					{ID: "we", Name: "eval", Input: evalInput("import sys\nprint('secret' in globals(), sys.argv[0])")},
				}}
			}
			return scripted.Step{Text: "tried"}
		},
	}
	res := &results{byID: map[string]string{}}
	a, err := newStarted(Options{Cwd: dir, LLM: m, PermissionMode: "yolo", Vibe: true}, res.sink, face.NoHuman{})
	if err != nil {
		t.Fatal(err)
	}
	end := a.Run(context.Background(), "go", nil)
	if err := a.Close(); err != nil {
		t.Errorf("close: %v", err)
	}
	if end.StopReason != "end_turn" {
		t.Fatalf("end %+v", end)
	}
	if got := res.get("l1"); !strings.Contains(got, "Stopped (breakpoint") {
		t.Fatalf("the program did not stop at its breakpoint: %s", got)
	}
	if got := res.get("wt"); !strings.Contains(got, "No debug session runs") {
		t.Errorf("the worker's terminate answered %q", got)
	}
	seen := strings.Fields(res.get("we"))
	if len(seen) < 2 || seen[0] != "False" {
		t.Fatalf("the worker's cell gave %q: it saw the parent's variables", res.get("we"))
	}
	if driver := seen[1]; proctest.Running(driver) {
		t.Errorf("the worker's kernel (%s) outlived the session", driver)
	}
	if got := res.get("st"); !strings.Contains(got, "prog.py:2") || strings.Contains(got, "No debug session") {
		t.Errorf("the parent's debug session after the worker's terminate: %q", got)
	}
	if got := res.get("t1"); !strings.Contains(got, "Terminated") {
		t.Errorf("the parent's terminate: %q", got)
	}
}
