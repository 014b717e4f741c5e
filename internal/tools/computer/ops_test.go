package computer

import (
	"encoding/json"
	"testing"

	"github.com/gantry-dev/gantry/internal/desktop"
	"github.com/gantry-dev/gantry/internal/permission"
	"github.com/gantry-dev/gantry/internal/tool"
)

// The person is asked per action: looking at the desktop is not asked in default
// mode, acting on it is; plan mode refuses every action, as it declares no exec tool.
func TestComputerAskedPerAction(t *testing.T) {
	d := New(Options{Open: func() (desktop.Backend, error) { return nil, desktop.ErrNoDisplay }})
	tl := d.Tools()[0]
	def, err := permission.NewEngine(permission.ModeDefault, nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	plan, err := permission.NewEngine(permission.ModePlan, nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	cases := map[string]permission.Decision{
		`{"action":"screenshot"}`:                             permission.Allow,
		`{"action":"find_element","query":"OK"}`:              permission.Allow,
		`{"action":"ax_tree"}`:                                permission.Allow,
		`{"action":"click","element":1}`:                      permission.Ask,
		`{"action":"right_click","x":1,"y":2}`:                permission.Ask,
		`{"action":"type","text":"rm -rf ~"}`:                 permission.Ask,
		`{"action":"key","key":"enter"}`:                      permission.Ask,
		`{"action":"scroll","dy":1}`:                          permission.Ask,
		`{"action":"drag","start_element":1,"end_element":2}`: permission.Ask,
	}
	for in, want := range cases {
		inv, msg := tl.Decode(tool.Env{}, json.RawMessage(in))
		if msg != "" {
			t.Fatalf("%s: %s", in, msg)
		}
		call := permission.Call{Tool: tl.Name(), Level: tool.Describe(tl, inv).Level, ToolLevel: tl.Level(), Principal: inv.Principal}
		if v := def.Check(call); v.Decision != want {
			t.Errorf("%s in default mode: %s (%s), want %s", in, v.Decision, v.Reason, want)
		}
		if v := plan.Check(call); v.Decision != permission.Deny {
			t.Errorf("%s in plan mode: %s, want deny", in, v.Decision)
		}
	}
	// A rule still names an action as before: computer:screenshot, computer:type .*.
	inv, _ := tl.Decode(tool.Env{}, json.RawMessage(`{"action":"type","text":"hi"}`))
	if inv.Principal != "type hi" {
		t.Errorf("type's principal is %q", inv.Principal)
	}
}
