package structural

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/gantry-dev/gantry/internal/permission"
	"github.com/gantry-dev/gantry/internal/permission/permtest"
	"github.com/gantry-dev/gantry/internal/tool"
)

// The structural tools under the per-file guard in yolo mode, where only deny rules
// protect: their calls name a pattern and a folder, which the gate lets through; the
// files they read and rewrite are checked one by one. Each attack first takes effect
// with no rule.

var guardProject = map[string]string{
	"a.go":        "package p\n\nconst Name = \"open\"\n",
	"secret/k.go": "package secret\n\nconst Key = \"hunter2\"\n",
}

func yoloGate(t *testing.T, dir string, deny ...string) *permission.Engine {
	t.Helper()
	return permtest.Yolo(t, dir, map[string]tool.Files{"ast_grep": tool.FilesRead, "ast_edit": tool.FilesRead, "resolve": tool.FilesWrite}, deny...)
}

// gated runs a call as the agent does, with the gate's guard; gate says whether the
// gate's own check of the call runs first (it must let it through).
func gated(t *testing.T, e *permission.Engine, tl tool.Tool, dir string, a map[string]any, gate bool) tool.Result {
	t.Helper()
	raw, _ := json.Marshal(a)
	inv, msg := tl.Decode(tool.Env{Cwd: dir, Files: e.FileGuard(tl.Name())}, raw)
	if msg != "" {
		return tool.Fail(msg)
	}
	if gate {
		v := e.Check(permission.Call{Tool: tl.Name(), Level: tl.Level(), Principal: inv.Principal, Paths: inv.Paths, Files: tl.Info().Files})
		if v.Decision != permission.Allow {
			t.Fatalf("the gate stopped the call itself (%s); the attack needs another path", v.Reason)
		}
	}
	return inv.Run(context.Background())
}

func structuralTools() map[string]tool.Tool {
	out := map[string]tool.Tool{}
	for _, tl := range NewSet(Options{}, NewStaged(&recorder{}), nil).Tools() {
		out[tl.Name()] = tl
	}
	return out
}

// ast_grep over the project reads a read-denied file's lines; under the rule it skips
// the file unread and names it.
func TestAstGrepSkipsDeniedFile(t *testing.T) {
	needParser(t)
	dir := writeTree(t, guardProject)
	args := map[string]any{"pattern": "const $N = $V", "language": "go"}
	r := gated(t, yoloGate(t, dir), Grep(Options{}), dir, args, true)
	want(t, r, false, `hunter2`)
	r = gated(t, yoloGate(t, dir, `read_file:secret/.*`), Grep(Options{}), dir, args, true)
	want(t, r, false, `a.go:3:1: const Name = "open"`, `[skipped secret/k.go: denied by read_file:secret/.* from --deny]`)
	if strings.Contains(r.Text, "hunter2") {
		t.Fatalf("ast_grep quoted the denied file:\n%s", r.Text)
	}
}

// ast_edit's diff quotes a read-denied file, and stages a write-denied one; under the
// rules it does neither and says so.
func TestAstEditStagesNoDeniedFile(t *testing.T) {
	needParser(t)
	args := map[string]any{"pattern": "const $N = $V", "rewrite": "const $N = \"x\"", "language": "go"}
	dir := writeTree(t, guardProject)
	r := gated(t, yoloGate(t, dir), structuralTools()["ast_edit"], dir, args, true)
	want(t, r, false, "- secret/k.go: 1 replacement(s)", "hunter2")

	r = gated(t, yoloGate(t, dir, `read_file:secret/.*`), structuralTools()["ast_edit"], dir, args, true)
	want(t, r, false, "- a.go: 1 replacement(s)", `[skipped secret/k.go: denied by read_file:secret/.* from --deny]`)
	if strings.Contains(r.Text, "hunter2") || strings.Contains(r.Text, "- secret/k.go") {
		t.Fatalf("ast_edit read the denied file:\n%s", r.Text)
	}

	r = gated(t, yoloGate(t, dir, `write_file:secret/.*`), structuralTools()["ast_edit"], dir, args, true)
	want(t, r, false, "- a.go: 1 replacement(s)", `[skipped secret/k.go: denied by write_file:secret/.* from --deny]`)
	if strings.Contains(r.Text, "- secret/k.go") || len(r.Display.Changes) != 1 {
		t.Fatalf("ast_edit staged the denied file:\n%s", r.Text)
	}
}

// resolve checks every file again before writing any: a change staged before the
// rule (the gate would refuse it too) is written whole with no rule, not at all under it.
func TestResolveChecksEveryFile(t *testing.T) {
	needParser(t)
	args := map[string]any{"pattern": "const $N = $V", "rewrite": "const $N = \"x\"", "language": "go"}
	accept := map[string]any{"edit_id": "edit_1", "action": "accept"}
	for _, rule := range []string{"", `write_file:secret/.*`, `read_file:secret/.*`} {
		dir := writeTree(t, guardProject)
		tools := structuralTools()
		want(t, gated(t, yoloGate(t, dir), tools["ast_edit"], dir, args, true), false, "in 2 file(s)")
		var deny []string
		if rule != "" {
			deny = append(deny, rule)
		}
		r := gated(t, yoloGate(t, dir, deny...), tools["resolve"], dir, accept, false)
		if rule == "" {
			want(t, r, false, "Wrote edit_1")
			if read(t, dir, "secret/k.go") == guardProject["secret/k.go"] {
				t.Fatal("with no rule resolve did not write the file, so the test proves nothing")
			}
			continue
		}
		want(t, r, true, rule, "nothing was written")
		for p, c := range guardProject {
			if read(t, dir, p) != c {
				t.Errorf("under %s, %s was written", rule, p)
			}
		}
	}
}
