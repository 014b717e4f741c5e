package debugtool

import (
	"encoding/json"
	"testing"

	"github.com/gantry-dev/gantry/internal/permission"
	"github.com/gantry-dev/gantry/internal/tool"
)

// The person is asked per operation: reading a stopped program is not asked in
// default mode, running or changing it is; plan mode refuses every operation, as it
// declares no exec tool.
func TestDebugAskedPerOperation(t *testing.T) {
	d := New(Options{})
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
		`{"operation":"adapters"}`:                    permission.Allow,
		`{"operation":"status"}`:                      permission.Allow,
		`{"operation":"stack"}`:                       permission.Allow,
		`{"operation":"threads"}`:                     permission.Allow,
		`{"operation":"scopes","frame_id":3}`:         permission.Allow,
		`{"operation":"variables","reference":4}`:     permission.Allow,
		`{"operation":"output"}`:                      permission.Allow,
		`{"operation":"launch","program":"."}`:        permission.Ask,
		`{"operation":"attach","port":4000}`:          permission.Ask,
		`{"operation":"continue"}`:                    permission.Ask,
		`{"operation":"step_over"}`:                   permission.Ask,
		`{"operation":"evaluate","expression":"f()"}`: permission.Ask,
		`{"operation":"breakpoints","file":"a.go"}`:   permission.Ask,
		`{"operation":"terminate"}`:                   permission.Ask,
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
	}
	if tl.Level() != tool.LevelExec {
		t.Errorf("debug's level is %s: plan mode and read-only agents must not see it", tl.Level())
	}
}

// An operation the table lacks is refused with the nearest name and the valid ones.
func TestDebugUnknownOperation(t *testing.T) {
	tl := New(Options{}).Tools()[0]
	_, msg := tl.Decode(tool.Env{}, json.RawMessage(`{"operation":"stak"}`))
	want := `debug has no operation "stak" (did you mean "stack"?); it has adapters, status, breakpoints, launch, attach, continue, pause, step_over, step_in, step_out, threads, stack, scopes, variables, evaluate, output and terminate.`
	if msg != want {
		t.Fatalf("got %q\nwant %q", msg, want)
	}
}
