package agent

import (
	"context"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/gantry-dev/gantry/internal/face"
	"github.com/gantry-dev/gantry/internal/llm/scripted"
	"github.com/gantry-dev/gantry/internal/permission"
	"github.com/gantry-dev/gantry/internal/tool"
)

type dbgArgs struct {
	Operation string `json:"operation"`
}

// dbgTool is an exec tool like debug: its "peek" reads a paused program, its "go"
// runs one.
func dbgTool() tool.Tool {
	run := func(_ context.Context, _ tool.Env, a dbgArgs) tool.Result {
		return tool.Result{Text: "did " + a.Operation}
	}
	return tool.New(tool.Def[dbgArgs]{
		Name: "dbg", Description: "dbg", Level: tool.LevelExec, Kind: tool.KindExecute,
		Principal: func(a dbgArgs) string { return a.Operation },
		Ops: &tool.Ops[dbgArgs]{Arg: "operation", List: []tool.Op[dbgArgs]{
			{Name: "peek", Level: tool.LevelRead, Run: run},
			{Name: "go", Level: tool.LevelExec, Run: run},
		}},
	})
}

// asked records the calls the person was asked about, and allows them once.
type asked struct {
	face.NoHuman
	mu    sync.Mutex
	calls []string
}

func (a *asked) AskPermission(_ context.Context, r face.PermissionRequest) (face.Answer, error) {
	a.mu.Lock()
	defer a.mu.Unlock()
	a.calls = append(a.calls, r.Call.Principal)
	return face.AllowOnce, nil
}

// The person is asked per operation: a read operation of an exec tool runs without a
// question in default mode, its exec operation is asked; accept-edits asks the same.
func TestPersonAskedPerOperation(t *testing.T) {
	for _, mode := range []permission.Mode{permission.ModeDefault, permission.ModeAcceptEdits} {
		p := scripted.New(scripted.Step{Calls: []scripted.Call{
			{Name: "dbg", Input: `{"operation":"peek"}`},
			{Name: "dbg", Input: `{"operation":"go"}`},
		}})
		a, _, _ := newAgent(t, p, mode)
		a.Tools.Add(dbgTool())
		who := &asked{}
		a.Asker = who
		a.Run(context.Background(), "go")
		rs := results(t, p, 1)
		if rs[0].Text != "did peek" || rs[1].Text != "did go" {
			t.Fatalf("%s: results %q, %q", mode, rs[0].Text, rs[1].Text)
		}
		if !slices.Equal(who.calls, []string{"go"}) {
			t.Errorf("%s: the person was asked about %v, want only go", mode, who.calls)
		}
	}
}

// Plan mode still goes by the tool's level: an exec tool is not declared, even for
// its read operations, and a call of one is refused as unknown.
func TestPlanModeHidesExecToolWithReadOps(t *testing.T) {
	p := scripted.New(scripted.Step{Calls: []scripted.Call{{Name: "dbg", Input: `{"operation":"peek"}`}}})
	a, _, _ := newAgent(t, p, permission.ModePlan)
	a.Tools.Add(dbgTool())
	a.Asker = &asked{}
	a.Run(context.Background(), "go")
	for _, s := range p.Requests()[0].Tools {
		if s.Name == "dbg" {
			t.Fatal("plan mode declared an exec tool")
		}
	}
	if r := results(t, p, 1)[0]; !r.IsError || !strings.Contains(r.Text, `no tool named "dbg"`) {
		t.Fatalf("plan mode ran a call of an exec tool: %q", r.Text)
	}
	// A subagent's plan mode (the gate's, not its declarations) refuses it too.
	gate, err := permission.NewEngine(permission.ModePlan, nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	c := permission.Call{Tool: "dbg", Level: tool.LevelRead, ToolLevel: tool.LevelExec, Principal: "peek"}
	if v := gate.Check(c); v.Decision != permission.Deny {
		t.Fatalf("plan mode's gate answered %s for a read operation of an exec tool", v.Decision)
	}
}
