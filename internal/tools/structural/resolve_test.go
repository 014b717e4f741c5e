package structural

import (
	"encoding/json"
	"testing"

	"github.com/gantry-dev/gantry/internal/permission"
	"github.com/gantry-dev/gantry/internal/tool"
)

// The person is asked per action: accept writes every file of the change and is
// asked as a write of them; discard only drops the change from the session and is not
// asked, in default mode or accept-edits. Plan mode refuses both, as it declares no
// write tool, and a deny rule naming discard, or resolve, still refuses it.
func TestResolveAskedPerAction(t *testing.T) {
	needParser(t)
	dir := writeTree(t, map[string]string{"a.py": "print(1)\n"})
	staged := NewStaged(&recorder{})
	want(t, call(t, EditTool(Options{}, staged), dir, map[string]any{"pattern": "print($A)", "rewrite": "log($A)"}), false, `"edit_1"`)
	tl := Resolve(Options{}, staged)
	engine := func(mode permission.Mode, deny ...string) *permission.Engine {
		e, err := permission.NewEngine(mode, nil, deny)
		if err != nil {
			t.Fatal(err)
		}
		e.SetProject(dir)
		e.SetFileTools(map[string]tool.Files{"read_file": tool.FilesRead, "write_file": tool.FilesWrite, "resolve": tool.FilesWrite})
		return e
	}
	gates := []struct {
		name    string
		e       *permission.Engine
		accept  permission.Decision
		discard permission.Decision
	}{
		{"default mode", engine(permission.ModeDefault), permission.Ask, permission.Allow},
		{"accept-edits mode", engine(permission.ModeAcceptEdits), permission.Allow, permission.Allow},
		{"plan mode", engine(permission.ModePlan), permission.Deny, permission.Deny},
		{"a deny rule of discard", engine(permission.ModeDefault, `resolve:discard .*`), permission.Ask, permission.Deny},
		{"a deny rule of resolve", engine(permission.ModeDefault, `resolve`), permission.Deny, permission.Deny},
		{"a deny rule of the file", engine(permission.ModeYolo, `write_file:a\.py`), permission.Deny, permission.Allow},
	}
	for _, action := range []string{"accept", "discard"} {
		raw, _ := json.Marshal(map[string]any{"edit_id": "edit_1", "action": action})
		inv, msg := tl.Decode(tool.Env{Cwd: dir}, raw)
		if msg != "" {
			t.Fatalf("%s: %s", action, msg)
		}
		c := tool.Describe(tl, inv)
		call := permission.Call{Tool: tl.Name(), Level: c.Level, ToolLevel: tl.Level(), Principal: inv.Principal, Paths: inv.Paths, Files: tl.Info().Files}
		for _, g := range gates {
			wantD := g.accept
			if action == "discard" {
				wantD = g.discard
			}
			if v := g.e.Check(call); v.Decision != wantD {
				t.Errorf("%s under %s: %s (%s), want %s", action, g.name, v.Decision, v.Reason, wantD)
			}
		}
	}
	if tl.Level() != tool.LevelWrite {
		t.Errorf("resolve's level is %s: plan mode and read-only agents must not see it", tl.Level())
	}
}

// An action the table lacks is refused with the nearest name and the valid ones.
func TestResolveUnknownAction(t *testing.T) {
	tl := Resolve(Options{}, NewStaged(nil))
	_, msg := tl.Decode(tool.Env{}, json.RawMessage(`{"edit_id":"edit_1","action":"acept"}`))
	want := `resolve has no action "acept" (did you mean "accept"?); it has accept and discard.`
	if msg != want {
		t.Fatalf("got %q\nwant %q", msg, want)
	}
}
