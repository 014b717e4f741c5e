package hooktool

import (
	"encoding/json"
	"testing"

	"github.com/gantry-dev/gantry/internal/hook"
	"github.com/gantry-dev/gantry/internal/permission"
	"github.com/gantry-dev/gantry/internal/tool"
)

// The person is asked per action: list and help only read and are not asked in
// default mode; register and remove change what runs at the session's events and are
// asked. Plan mode refuses every action, as it declares no exec tool; a deny rule on
// an action's principal still holds.
func TestHookAskedPerAction(t *testing.T) {
	t.Parallel()
	tl := Tool(hook.NewRunner(nil, hook.Base{}))
	def, err := permission.NewEngine(permission.ModeDefault, nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	plan, err := permission.NewEngine(permission.ModePlan, nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	denyList, err := permission.NewEngine(permission.ModeDefault, nil, []string{"register_hook:list"})
	if err != nil {
		t.Fatal(err)
	}
	cases := map[string]permission.Decision{
		`{"action":"list"}`: permission.Allow,
		`{"action":"help"}`: permission.Allow,
		`{"action":"register","event":"Stop","command":"make lint"}`: permission.Ask,
		`{"action":"remove","event":"Stop","index":1}`:               permission.Ask,
	}
	for in, want := range cases {
		inv, msg := tl.Decode(tool.Env{Cwd: t.TempDir()}, json.RawMessage(in))
		if msg != "" {
			t.Fatalf("%s: %s", in, msg)
		}
		c := tool.Describe(tl, inv)
		call := permission.Call{Tool: tl.Name(), Level: c.Level, ToolLevel: tl.Level(), Principal: inv.Principal, Paths: inv.Paths}
		if v := def.Check(call); v.Decision != want {
			t.Errorf("%s in default mode: %s (%s), want %s", in, v.Decision, v.Reason, want)
		}
		if v := plan.Check(call); v.Decision != permission.Deny {
			t.Errorf("%s in plan mode: %s, want deny", in, v.Decision)
		}
		wantDeny := inv.Principal == "list"
		if v := denyList.Check(call); (v.Decision == permission.Deny) != wantDeny {
			t.Errorf("%s under a deny rule of list: %s (%s)", in, v.Decision, v.Reason)
		}
	}
	if tl.Level() != tool.LevelExec {
		t.Errorf("register_hook's level is %s: plan mode and read-only agents must not see it", tl.Level())
	}
}

// An action the table lacks is refused with the nearest name and the valid ones.
func TestHookUnknownAction(t *testing.T) {
	t.Parallel()
	tl := Tool(hook.NewRunner(nil, hook.Base{}))
	_, msg := tl.Decode(tool.Env{}, json.RawMessage(`{"action":"lst"}`))
	want := `register_hook has no action "lst" (did you mean "list"?); it has register, list, remove and help.`
	if msg != want {
		t.Fatalf("got %q\nwant %q", msg, want)
	}
}
