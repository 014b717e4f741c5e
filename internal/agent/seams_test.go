package agent

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"sync"
	"testing"

	"github.com/gantry-dev/gantry/internal/face"
	"github.com/gantry-dev/gantry/internal/llm"
	"github.com/gantry-dev/gantry/internal/llm/scripted"
	"github.com/gantry-dev/gantry/internal/permission"
	"github.com/gantry-dev/gantry/internal/tool"
)

type countedArgs struct {
	Path string `json:"path"`
}

// countedTools are tools that declare counter classes, icons, titles and a preview.
func countedTools() *tool.Registry {
	r := tool.NewRegistry()
	mk := func(name string, level tool.Level, kind tool.Kind, c tool.Counter) tool.Tool {
		return tool.New(tool.Def[countedArgs]{
			Name: name, Description: name, Level: level, Kind: kind, Counter: c, Icon: "@",
			Principal: func(a countedArgs) string { return a.Path },
			Paths:     func(env tool.Env, a countedArgs) []string { return []string{env.Abs(a.Path)} },
			Title: func(env tool.Env, a countedArgs, paths []string) string {
				return tool.PathsTitle("Touch", env, paths, a.Path)
			},
			Preview: func(_ context.Context, _ tool.Env, a countedArgs) tool.Display {
				return tool.Display{Diff: "+would write " + a.Path}
			},
			Run: func(_ context.Context, _ tool.Env, a countedArgs) tool.Result {
				return tool.Result{Text: name + " " + a.Path}
			},
		})
	}
	r.Add(mk("cmd", tool.LevelExec, tool.KindExecute, tool.CountCommand))
	r.Add(mk("file", tool.LevelWrite, tool.KindEdit, tool.CountFileOp))
	r.Add(mk("look", tool.LevelRead, tool.KindRead, tool.CountNone))
	return r
}

// A turn is one prompt to the final answer: StepEnded carries the turn's counters so
// far, TurnEnded their sum over the whole turn.
func TestCountersSumTheWholeTurn(t *testing.T) {
	p := scripted.New(
		scripted.Step{Calls: []scripted.Call{{Name: "cmd", Input: `{"path":"a"}`}, {Name: "file", Input: `{"path":"b"}`}}},
		scripted.Step{Calls: []scripted.Call{{Name: "cmd", Input: `{"path":"c"}`}, {Name: "look", Input: `{"path":"d"}`}}},
		scripted.Step{Calls: []scripted.Call{{Name: "file", Input: `{"path":"e"}`}}},
		scripted.Step{Text: "done"},
	)
	a, ev, _ := newAgent(t, p, permission.ModeYolo)
	a.Tools = countedTools()
	end := a.Run(context.Background(), "go")
	if end.Counters != (face.Counters{Commands: 2, FileOps: 2}) || end.Steps != 4 {
		t.Fatalf("turn counters %+v in %d steps", end.Counters, end.Steps)
	}
	var steps []face.Counters
	for _, e := range ev.ev {
		if s, ok := e.(face.StepEnded); ok {
			steps = append(steps, s.Counters)
		}
	}
	want := []face.Counters{{Commands: 1, FileOps: 1}, {Commands: 2, FileOps: 1}, {Commands: 2, FileOps: 2}}
	if len(steps) != len(want) {
		t.Fatalf("step counters %+v", steps)
	}
	for i := range want {
		if steps[i] != want[i] {
			t.Fatalf("step %d counters %+v, want %+v (the turn's so far)", i+1, steps[i], want[i])
		}
	}
}

// Every call, also an unknown or malformed one, is announced once with what its tool
// says of it, before it finishes.
func TestCallsDescribeThemselves(t *testing.T) {
	p := scripted.New(
		scripted.Step{Calls: []scripted.Call{{ID: "1", Name: "file", Input: `{"path":"src/x.go"}`}, {ID: "2", Name: "nope", Input: `{}`}, {ID: "3", Name: "file", Input: `{"path":7}`}}},
		scripted.Step{Text: "done"},
	)
	a, ev, _ := newAgent(t, p, permission.ModeYolo)
	a.Tools = countedTools()
	a.Run(context.Background(), "go")
	started := map[string]face.ToolStarted{}
	for _, e := range ev.ev {
		switch e := e.(type) {
		case face.ToolStarted:
			if _, twice := started[e.CallID]; twice {
				t.Fatalf("call %s announced twice", e.CallID)
			}
			started[e.CallID] = e
		case face.ToolFinished:
			s, ok := started[e.CallID]
			if !ok {
				t.Fatalf("call %s finished before it started", e.CallID)
			}
			if s.Call.Name != e.Call.Name || s.Title != e.Title {
				t.Fatalf("call %s: started as %+v, finished as %+v", e.CallID, s.Call, e.Call)
			}
		}
	}
	if c := started["1"]; c.Title != "Touch src/x.go" || c.Icon != "@" || c.Counter != tool.CountFileOp || c.Kind != tool.KindEdit || len(c.Locations) != 1 {
		t.Fatalf("call 1 = %+v", c.Call)
	}
	if c := started["2"]; c.Name != "nope" || c.Kind != tool.KindOther || c.Icon != tool.DefaultIcon {
		t.Fatalf("an unknown tool = %+v", c.Call)
	}
	if c := started["3"]; c.Name != "file" || c.Icon != "@" {
		t.Fatalf("malformed arguments still describe the tool: %+v", c.Call)
	}
}

// recordingAsker keeps the permission requests and answers once.
type recordingAsker struct {
	face.NoHuman
	mu   sync.Mutex
	reqs []face.PermissionRequest
	ans  face.Answer
}

func (r *recordingAsker) AskPermission(_ context.Context, req face.PermissionRequest) (face.Answer, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.reqs = append(r.reqs, req)
	return r.ans, nil
}

// A permission question carries what the call would change and what "always" keeps,
// and "always" keeps exactly that.
func TestPermissionRequestCarriesPreviewAndGrant(t *testing.T) {
	p := scripted.New(
		scripted.Step{Calls: []scripted.Call{{Name: "cmd", Input: `{"path":"go test ./..."}`}}},
		scripted.Step{Calls: []scripted.Call{{Name: "cmd", Input: `{"path":"go test ./x"}`}}},
		scripted.Step{Text: "done"},
	)
	a, _, _ := newAgent(t, p, permission.ModeDefault)
	a.Tools = countedTools()
	asker := &recordingAsker{ans: face.AllowAlways}
	a.Asker = asker
	a.Run(context.Background(), "go")
	if len(asker.reqs) != 2 {
		// cmd's principal is not parsed as a shell command (the tool is not bash), so
		// its grant is the exact call: the second, different call asks again.
		t.Fatalf("%d questions, want 2", len(asker.reqs))
	}
	req := asker.reqs[0]
	if req.Preview.Diff != "+would write go test ./..." || req.Title != "Touch go test ./..." {
		t.Fatalf("request %+v", req)
	}
	if req.Always.Label == "" || len(req.Always.Rules) != 1 {
		t.Fatalf("the question does not say what always keeps: %+v", req.Always)
	}
}

// failingStore fails every write after the first n.
type failingStore struct {
	memRecorder
	mu sync.Mutex
	n  int
}

func (f *failingStore) fail() error {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.n > 0 {
		f.n--
		return nil
	}
	return errors.New("database or disk is full")
}

func (f *failingStore) AppendMessage(llm.Message) error                      { return f.fail() }
func (f *failingStore) AppendResponse(llm.Message, llm.Usage, float64) error { return f.fail() }
func (f *failingStore) AppendEvent(string, any) error                        { return f.fail() }
func (f *failingStore) EndTurn() error                                       { return f.fail() }

// A store that cannot write stops the turn at that record: no model request and no
// call runs after it, and the turn's end says why.
func TestStoreErrorsStopTheTurn(t *testing.T) {
	for _, c := range []struct {
		name     string
		writes   int // that succeed
		requests int // the model gets
		ran      int // calls run
	}{
		{"the prompt", 0, 0, 0},
		{"the response", 1, 1, 0},
		{"the first call's start", 2, 1, 0},
		{"the results", 5, 1, 2},
	} {
		t.Run(c.name, func(t *testing.T) {
			p := scripted.New(
				scripted.Step{Calls: []scripted.Call{{Name: "run", Input: `{"text":"1"}`}, {Name: "run", Input: `{"text":"2"}`}}},
				scripted.Step{Text: "the final answer"},
			)
			a, ev, _ := newAgent(t, p, permission.ModeYolo)
			a.Store = &failingStore{n: c.writes}
			end := a.Run(context.Background(), "go")
			var stop *StoreStopped
			if end.StopReason != "error" || !errors.As(end.Err, &stop) || end.StoreErr == nil ||
				!strings.Contains(end.Err.Error(), "disk is full") || !strings.Contains(end.Err.Error(), "the turn stopped there") {
				t.Fatalf("end = %+v", end)
			}
			if n := len(p.Requests()); n != c.requests {
				t.Errorf("%d model requests, want %d", n, c.requests)
			}
			ran := 0
			for _, e := range ev.ev {
				if f, ok := e.(face.ToolFinished); ok && !strings.HasPrefix(f.Result.Text, "[not run") {
					ran++
				}
				if _, ok := e.(face.Notice); ok {
					t.Errorf("a notice besides the turn's end: %+v", e)
				}
			}
			if ran != c.ran {
				t.Errorf("%d calls ran, want %d", ran, c.ran)
			}
		})
	}
}

// A store error found only at the turn's end (its last records) ends it as an error.
func TestStoreErrorAtTheEnd(t *testing.T) {
	p := scripted.New(scripted.Step{Text: "the final answer"})
	a, _, _ := newAgent(t, p, permission.ModeYolo)
	a.Store = &failingStore{n: 3}
	end := a.Run(context.Background(), "go")
	if end.StopReason != "error" || end.StoreErr == nil || end.Text != "the final answer" {
		t.Fatalf("end = %+v", end)
	}
	// The next turn starts clean: its own errors are its own.
	a.Store = &memRecorder{}
	a.Provider = scripted.New(scripted.Step{Text: "again"})
	if end := a.Run(context.Background(), "again"); end.StoreErr != nil {
		t.Fatalf("a healthy store's turn reports %v", end.StoreErr)
	}
}

// A PreToolUse hook's rewritten input is what the call is announced and run with.
func TestHookRewriteIsWhatIsShown(t *testing.T) {
	p := scripted.New(
		scripted.Step{Calls: []scripted.Call{{ID: "w", Name: "file", Input: `{"path":"draft.txt"}`}}},
		scripted.Step{Text: "done"},
	)
	a, ev, _ := newAgent(t, p, permission.ModeYolo)
	a.Tools = countedTools()
	a.Hooks = &fakeHooks{result: map[string][]HookResult{HookPreToolUse: {{UpdatedInput: json.RawMessage(`{"path":"final.txt"}`)}}}}
	a.Run(context.Background(), "go")
	var started face.ToolStarted
	for _, e := range ev.ev {
		if s, ok := e.(face.ToolStarted); ok {
			started = s
		}
	}
	if started.Principal != "final.txt" || string(started.Input) != `{"path":"final.txt"}` || !strings.Contains(started.Note, "hook") {
		t.Fatalf("announced %+v", started)
	}
	if r := results(t, p, 1)[0]; r.Text != "file final.txt" {
		t.Fatalf("ran %q", r.Text)
	}
}
