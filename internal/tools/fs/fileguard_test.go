package fs

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/gantry-dev/gantry/internal/permission"
	"github.com/gantry-dev/gantry/internal/permission/permtest"
	"github.com/gantry-dev/gantry/internal/tool"
)

// The per-file guard in yolo mode, where only deny rules protect: each attack is first
// run with no rule, where it leaks the secret or writes the protected file, then with
// the rule, where the gate's check of the call lets it through and the guard stops it.

const secret = "KEY=hunter2"

// yoloGate is the engine of a yolo session in dir with the deny rules, knowing the
// file tools of this package.
func yoloGate(t *testing.T, dir string, deny ...string) *permission.Engine {
	t.Helper()
	fams := map[string]tool.Files{}
	for _, tl := range Tools(testOpts) {
		if f := tl.Info().Files; f != tool.FilesNone {
			fams[tl.Name()] = f
		}
	}
	return permtest.Yolo(t, dir, fams, deny...)
}

// gated runs a call as the agent does: decoded with the gate's guard for the tool,
// checked by the gate, run when allowed. It returns the result and whether the gate's
// check of the whole call let it through.
func gated(t *testing.T, e *permission.Engine, name, dir string, args any) (tool.Result, bool) {
	t.Helper()
	var tl tool.Tool
	for _, x := range Tools(testOpts) {
		if x.Name() == name {
			tl = x
		}
	}
	raw, err := json.Marshal(args)
	if err != nil {
		t.Fatal(err)
	}
	inv, msg := tl.Decode(tool.Env{Cwd: dir, Files: e.FileGuard(name)}, raw)
	if msg != "" {
		return tool.Fail(msg), true
	}
	v := e.Check(permission.Call{Tool: name, Level: tl.Level(), Principal: inv.Principal, Paths: inv.Paths, Files: tl.Info().Files})
	if v.Decision != permission.Allow {
		return tool.Fail(v.Reason), false
	}
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	return inv.Run(ctx), true
}

// leaks reports whether the result, or what faces show of it, carries s.
func leaks(r tool.Result, s string) bool {
	if strings.Contains(r.Text, s) || strings.Contains(r.Display.Diff, s) || strings.Contains(r.Display.Preview, s) {
		return true
	}
	for _, c := range r.Display.Changes {
		if strings.Contains(c.Old, s) || strings.Contains(c.New, s) {
			return true
		}
	}
	return false
}

type fileAttack struct {
	name string
	rule string
	tool string
	args A
	// stopped is what must hold after the call; leaked what holds when it got through.
	leaked func(t *testing.T, dir string, r tool.Result) bool
}

func readsSecret(_ *testing.T, _ string, r tool.Result) bool { return leaks(r, secret) }

// fileAttacks are the calls that got past path rules checked on the call's principal.
var fileAttacks = []fileAttack{
	{"edit_file on .env with a wrong old text quotes the most similar line", `read_file:\.env`, "edit_file",
		A{"path": ".env", "edits": []A{{"old": "KEY=hunter3", "new": "x"}}}, readsSecret},
	{"edit_file on .env with the right old text shows it in the diff", `read_file:\.env`, "edit_file",
		A{"path": ".env", "edits": []A{{"old": "KEY=", "new": "KEY2="}}}, readsSecret},
	{"edit_file through a link to .env", `read_file:\.env`, "edit_file",
		A{"path": "src/env-link", "edits": []A{{"old": "KEY=hunter9", "new": "x"}}}, readsSecret},
	{"write_file over .env diffs the old content", `read_file:\.env`, "write_file",
		A{"path": ".env", "content": "KEY=new\n"}, readsSecret},
	{"write_file tells whether .env already holds a guess", `read_file:\.env`, "write_file",
		A{"path": ".env", "content": secret + "\n"}, func(_ *testing.T, _ string, r tool.Result) bool {
			return strings.Contains(r.Text, "already has exactly this content")
		}},
	{"apply_patch Update of .env with a wrong hunk quotes it", `read_file:\.env`, "apply_patch",
		A{"patch": "*** Begin Patch\n*** Update File: .env\n@@\n-KEY=nope\n+KEY=x\n*** End Patch\n"}, readsSecret},
	{"apply_patch moves .env to an allowed name for read_file", `read_file:\.env`, "apply_patch",
		A{"patch": "*** Begin Patch\n*** Update File: .env\n*** Move to: notes.txt\n@@\n KEY=hunter2\n+more\n*** End Patch\n"},
		func(t *testing.T, dir string, r tool.Result) bool {
			b, err := os.ReadFile(filepath.Join(dir, "notes.txt"))
			return err == nil && strings.Contains(string(b), secret) || leaks(r, secret)
		}},
	{"apply_patch moves an allowed file onto the denied name", `read_file:\.env`, "apply_patch",
		A{"patch": "*** Begin Patch\n*** Delete File: .env\n*** Update File: src/a.txt\n*** Move to: .env\n@@\n a\n+b\n*** End Patch\n"},
		func(t *testing.T, dir string, _ tool.Result) bool {
			b, _ := os.ReadFile(filepath.Join(dir, ".env"))
			return !strings.Contains(string(b), secret)
		}},
	{"apply_patch touching an allowed and a denied file", `write_file:secret/.*`, "apply_patch",
		A{"patch": "*** Begin Patch\n*** Update File: src/a.txt\n@@\n a\n+b\n*** Update File: link/kept.txt\n@@\n kept\n+changed\n*** End Patch\n"},
		func(t *testing.T, dir string, _ tool.Result) bool {
			a, _ := os.ReadFile(filepath.Join(dir, "src/a.txt"))
			k, _ := os.ReadFile(filepath.Join(dir, "secret/kept.txt"))
			return string(a) != "a\n" || string(k) != "kept\n"
		}},
}

// fileProject is a project with the secret .env, a link to it, an allowed file and a
// protected folder (secret/, and link → secret).
func fileProject(t *testing.T) string {
	dir := t.TempDir()
	writeTestFile(t, dir, ".env", secret+"\n")
	writeTestFile(t, dir, "src/a.txt", "a\n")
	writeTestFile(t, dir, "secret/kept.txt", "kept\n")
	if err := os.Symlink("../.env", filepath.Join(dir, "src/env-link")); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("secret", filepath.Join(dir, "link")); err != nil {
		t.Fatal(err)
	}
	return dir
}

func TestFileGuardStopsFileToolAttacks(t *testing.T) {
	for _, a := range fileAttacks {
		t.Run(a.name, func(t *testing.T) {
			dir := fileProject(t)
			r, _ := gated(t, yoloGate(t, dir), a.tool, dir, a.args)
			if !a.leaked(t, dir, r) {
				t.Fatalf("with no rule the attack does not take effect, so the test proves nothing: %s", r.Text)
			}
			dir = fileProject(t)
			r, through := gated(t, yoloGate(t, dir, a.rule), a.tool, dir, a.args)
			if a.leaked(t, dir, r) {
				t.Fatalf("the attack took effect under %s (gate let it through: %v): %s", a.rule, through, r.Text)
			}
			if through && !strings.Contains(r.Text, "denied by the rule") && !strings.Contains(r.Text, "not shown") {
				t.Errorf("the result does not name the rule: %s", r.Text)
			}
		})
	}
}

// A refused edit_file or apply_patch changes nothing; read_file names the rule.
func TestFileGuardRefusalsWriteNothing(t *testing.T) {
	dir := fileProject(t)
	e := yoloGate(t, dir, `read_file:\.env`)
	r, _ := gated(t, e, "edit_file", dir, A{"path": ".env", "edits": []A{{"old": "KEY=", "new": "X="}}})
	if !r.IsError || readTestFile(t, filepath.Join(dir, ".env")) != secret+"\n" {
		t.Errorf("edit_file: %s", r.Text)
	}
	r, _ = gated(t, e, "apply_patch", dir, A{"patch": "*** Begin Patch\n*** Update File: src/a.txt\n@@\n a\n+b\n*** Update File: .env\n@@\n KEY=hunter2\n+x\n*** End Patch\n"})
	if !r.IsError || readTestFile(t, filepath.Join(dir, "src/a.txt")) != "a\n" || !strings.Contains(r.Text, `read_file:\.env`) {
		t.Errorf("apply_patch: %s", r.Text)
	}
	// write_file over a read-denied file writes it, and shows nothing of what it held.
	r, _ = gated(t, e, "write_file", dir, A{"path": ".env", "content": "KEY=new\n"})
	if r.IsError || leaks(r, secret) || readTestFile(t, filepath.Join(dir, ".env")) != "KEY=new\n" {
		t.Errorf("write_file: %s", r.Text)
	}
	// Emptied: written too, not taken for the content it already has.
	r, _ = gated(t, e, "write_file", dir, A{"path": ".env", "content": ""})
	if r.IsError || readTestFile(t, filepath.Join(dir, ".env")) != "" {
		t.Errorf("write_file of nothing: %s", r.Text)
	}
}
