package permission

import (
	"testing"

	"github.com/gantry-dev/gantry/internal/tool"
)

// A call's Mode narrows the engine's mode and never widens it: a subagent whose
// definition says bypassPermissions runs under its caller's default, one that says
// default or plan under a yolo caller asks or is refused.
func TestCallModeNarrowsNeverWidens(t *testing.T) {
	cases := []struct {
		engine, call Mode
		c            Call
		want         Decision
	}{
		{ModeDefault, ModeYolo, Call{Tool: "bash", Level: tool.LevelExec, Principal: "make"}, Ask},
		{ModeDefault, ModeAcceptEdits, Call{Tool: "web_fetch", Level: tool.LevelWrite, Principal: "x"}, Ask},
		{ModeAcceptEdits, ModeYolo, Call{Tool: "bash", Level: tool.LevelExec, Principal: "make"}, Ask},
		{ModeYolo, ModeDefault, Call{Tool: "bash", Level: tool.LevelExec, Principal: "make"}, Ask},
		{ModeYolo, ModeAcceptEdits, Call{Tool: "bash", Level: tool.LevelExec, Principal: "make"}, Ask},
		{ModeYolo, ModeAcceptEdits, Call{Tool: "todo", Level: tool.LevelWrite, Principal: "x"}, Allow},
		{ModeYolo, ModePlan, Call{Tool: "bash", Level: tool.LevelExec, Principal: "make"}, Deny},
		{ModeYolo, ModePlan, Call{Tool: "todo", Level: tool.LevelWrite, Principal: "x"}, Deny},
		{ModeYolo, "", Call{Tool: "bash", Level: tool.LevelExec, Principal: "make"}, Allow},
		{ModePlan, ModeYolo, Call{Tool: "bash", Level: tool.LevelExec, Principal: "ls"}, Deny},
	}
	for _, c := range cases {
		e, err := NewEngine(c.engine, nil, nil)
		if err != nil {
			t.Fatal(err)
		}
		c.c.Mode = c.call
		if got := e.Check(c.c); got.Decision != c.want {
			t.Errorf("engine %s, call %q: %s %q is %v (%s), want %v", c.engine, c.call, c.c.Tool, c.c.Principal, got.Decision, got.Reason, c.want)
		}
	}
	for _, c := range []struct{ a, b, want Mode }{
		{ModeYolo, ModeDefault, ModeDefault}, {ModePlan, ModeAcceptEdits, ModePlan},
		{ModeDefault, "", ModeDefault}, {"", ModeYolo, ModeYolo}, {"dontAsk", ModeAcceptEdits, ModeAcceptEdits},
	} {
		if got := Stricter(c.a, c.b); got != c.want {
			t.Errorf("Stricter(%q, %q) = %q, want %q", c.a, c.b, got, c.want)
		}
	}
}
