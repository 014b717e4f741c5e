package agent

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/gantry-dev/gantry/internal/face"
	"github.com/gantry-dev/gantry/internal/llm/scripted"
	"github.com/gantry-dev/gantry/internal/permission"
	"github.com/gantry-dev/gantry/internal/tool"
)

type quietArgs struct {
	Say  string `json:"say,omitempty"`
	Size int    `json:"size,omitempty"`
}

// pathTools adds to testTools a read tool that prints progress and says what it was
// asked (nothing, or size lines), and an exec one.
func pathTools() *tool.Registry {
	var running, peak int32
	r := testTools(&running, &peak)
	say := func(name string, level tool.Level) tool.Tool {
		return tool.New(tool.Def[quietArgs]{Name: name, Description: name, Level: level, Kind: tool.KindOther,
			Run: func(ctx context.Context, _ tool.Env, a quietArgs) tool.Result {
				if w := tool.ProgressOf(ctx); w != nil {
					w([]byte("working\n"))
				}
				return tool.Result{Text: a.Say + strings.Repeat("line\n", a.Size)}
			}})
	}
	r.Add(say("say", tool.LevelRead))
	r.Add(say("make", tool.LevelWrite))
	return r
}

// callTrace is what the faces and the caller saw of the call "x".
type callTrace struct {
	kinds     []string // ToolStarted, ToolRunning, ToolOutput (once), ToolFinished
	text      string   // the result's text as the face got it
	refused   bool
	cancelled bool
	changes   int // BeforeChange calls
}

func trace(ev *events, changes int) callTrace {
	ev.mu.Lock()
	defer ev.mu.Unlock()
	var tr callTrace
	tr.changes = changes
	add := func(k string) {
		if n := len(tr.kinds); k == "ToolOutput" && n > 0 && tr.kinds[n-1] == k {
			return
		}
		tr.kinds = append(tr.kinds, k)
	}
	for _, e := range ev.ev {
		switch e := e.(type) {
		case face.ToolStarted:
			add("ToolStarted")
		case face.ToolRunning:
			add("ToolRunning")
		case face.ToolOutput:
			add("ToolOutput")
		case face.ToolFinished:
			add("ToolFinished")
			tr.text, tr.refused, tr.cancelled = e.Result.Text, e.Refused, e.Cancelled
		}
	}
	return tr
}

// bothPaths runs the call name(input) under id "x" once as a model's call in a turn and
// once through Call, on agents set up alike, and returns what each showed and what
// the model and Call's caller got.
func bothPaths(t *testing.T, mode permission.Mode, setup func(*Agent), name, input string) (loop, call callTrace, modelText, callText string) {
	t.Helper()
	for _, viaCall := range []bool{false, true} {
		p := scripted.New(scripted.Step{Calls: []scripted.Call{{ID: "x", Name: name, Input: input}}}, scripted.Step{Text: "done"})
		a, ev, _ := newAgent(t, p, mode)
		a.Tools = pathTools()
		a.Config.MaxOutput = 2000
		changes := 0
		a.BeforeChange = func(context.Context) { changes++ }
		if setup != nil {
			setup(a)
		}
		if viaCall {
			callText = a.Call(context.Background(), "x", name, []byte(input)).Text
			call = trace(ev, changes)
			continue
		}
		if end := a.Run(context.Background(), "go"); end.Err != nil {
			t.Fatalf("turn: %v", end.Err)
		}
		modelText = results(t, p, 1)[0].Text
		loop = trace(ev, changes)
	}
	return loop, call, modelText, callText
}

// TestCallIsALoopCall shows each difference Call had from the loop's calls behaving
// the same on both paths now.
func TestCallIsALoopCall(t *testing.T) {
	for _, c := range []struct {
		name        string
		mode        permission.Mode
		setup       func(*Agent)
		tool, input string
		check       func(t *testing.T, tr callTrace, text string)
	}{
		{name: "a PostToolUse hook's context", mode: permission.ModeYolo, tool: "say", input: `{"say":"hi"}`,
			setup: func(a *Agent) {
				a.Hooks = &fakeHooks{result: map[string][]HookResult{HookPostToolUse: {{Context: "checked"}}}}
			},
			check: func(t *testing.T, tr callTrace, text string) {
				if !strings.Contains(text, "hi\n[PostToolUse hook context: checked]") {
					t.Errorf("result %q lacks the hook's context", text)
				}
			}},
		{name: "a refused call's event", mode: permission.ModeDefault, tool: "run", input: `{"text":"ls"}`,
			setup: func(a *Agent) { a.Asker = answerer{ans: face.DenyOnce} },
			check: func(t *testing.T, tr callTrace, text string) {
				if !tr.refused || text != "[run rejected by the user]" {
					t.Errorf("refused = %v, text %q", tr.refused, text)
				}
				if fmt.Sprint(tr.kinds) != "[ToolStarted ToolFinished]" {
					t.Errorf("events %v", tr.kinds)
				}
			}},
		{name: "a PreToolUse hook's block", mode: permission.ModeYolo, tool: "say", input: `{"say":"hi"}`,
			setup: func(a *Agent) {
				a.Hooks = &fakeHooks{result: map[string][]HookResult{HookPreToolUse: {{Block: true, Reason: "not today"}}}}
			},
			check: func(t *testing.T, tr callTrace, text string) {
				if !tr.refused || !strings.Contains(text, "blocked by a PreToolUse hook: not today") {
					t.Errorf("refused = %v, text %q", tr.refused, text)
				}
			}},
		{name: "the bound", mode: permission.ModeYolo, tool: "say", input: `{"size":1000}`,
			check: func(t *testing.T, tr callTrace, text string) {
				if len(text) >= 5000 || !strings.HasPrefix(text, "line\n") || !strings.Contains(text, "cut") {
					t.Errorf("the result was not cut: %q", text)
				}
			}},
		{name: "an empty result", mode: permission.ModeYolo, tool: "say", input: `{}`,
			check: func(t *testing.T, tr callTrace, text string) {
				if text != "(no output)" {
					t.Errorf("text %q", text)
				}
			}},
		{name: "progress and the ToolFinished count", mode: permission.ModeYolo, tool: "say", input: `{"say":"a"}`,
			check: func(t *testing.T, tr callTrace, text string) {
				if fmt.Sprint(tr.kinds) != "[ToolStarted ToolRunning ToolOutput ToolFinished]" {
					t.Errorf("events %v", tr.kinds)
				}
			}},
		{name: "the checkpoint before a change", mode: permission.ModeYolo, tool: "make", input: `{"say":"made"}`,
			check: func(t *testing.T, tr callTrace, text string) {
				if tr.changes != 1 {
					t.Errorf("BeforeChange ran %d times", tr.changes)
				}
			}},
	} {
		t.Run(c.name, func(t *testing.T) {
			loop, call, modelText, callText := bothPaths(t, c.mode, c.setup, c.tool, c.input)
			c.check(t, loop, modelText)
			if fmt.Sprintf("%+v", loop) != fmt.Sprintf("%+v", call) || modelText != callText {
				t.Errorf("the paths differ:\nloop %+v (model read %q)\nCall %+v (caller read %q)", loop, modelText, call, callText)
			}
		})
	}
}

// TestCallSkipsWhatIsTheModels: a program's repeated call gets no loop note, and
// nothing of a Call is stored.
func TestCallSkipsWhatIsTheModels(t *testing.T) {
	a, _, _ := newAgent(t, scripted.New(), permission.ModeYolo)
	a.Tools = pathTools()
	rec := &memRecorder{}
	a.Store = rec
	for i := range 4 {
		if r := a.Call(context.Background(), fmt.Sprintf("r%d", i), "say", []byte(`{"say":"same"}`)); r.Text != "same" {
			t.Fatalf("call %d read %q", i, r.Text)
		}
	}
	if len(rec.calls) != 0 {
		t.Fatalf("Call stored %v", rec.calls)
	}
}

// TestCallCancelledBeforeItRuns: like a model's call, a call whose context is done
// before it runs says so on its ToolFinished.
func TestCallCancelledBeforeItRuns(t *testing.T) {
	a, ev, _ := newAgent(t, scripted.New(), permission.ModeYolo)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	a.Call(ctx, "x", "echo", []byte(`{"text":"t"}`))
	if tr := trace(ev, 0); !tr.cancelled || fmt.Sprint(tr.kinds) != "[ToolStarted ToolFinished]" {
		t.Fatalf("trace %+v", tr)
	}
}
