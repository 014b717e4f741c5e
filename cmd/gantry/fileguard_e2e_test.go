package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gantry-dev/gantry/internal/llm/fakellm"
)

// Path rules on the files a call really touches, through the real binary in yolo mode
// (only deny rules protect there): grep over the project with glob .env, grep over a
// folder a Claude Code Read(./secrets/**) deny covers, edit_file's "most similar line",
// a *** Move to: of .env for read_file to read under a new name. First run with no
// rule, where each leaks the secret, then with a --deny rule and the Claude rule in the
// user's Claude settings, where none does.
func TestFileGuardEndToEnd(t *testing.T) {
	move, _ := json.Marshal(map[string]string{"patch": "*** Begin Patch\n*** Update File: .env\n*** Move to: notes.txt\n@@\n KEY=hunter2\n+more\n*** End Patch"})
	calls := map[string][2]string{
		"g1": {"grep", `{"pattern":"hunter","glob":".env","output_mode":"content"}`},
		"g2": {"grep", `{"pattern":"hunter","output_mode":"content"}`},
		"e1": {"edit_file", `{"path":".env","edits":[{"old":"KEY=hunter3","new":"x"}]}`},
		"p1": {"apply_patch", string(move)},
		"r1": {"read_file", `{"path":"notes.txt"}`},
	}
	order := []string{"g1", "g2", "e1", "p1", "r1"}
	for _, rules := range []bool{false, true} {
		dir := t.TempDir()
		os.Mkdir(filepath.Join(dir, ".git"), 0o755)
		writeFiles(t, dir, map[string]string{".env": "KEY=hunter2\n", "secrets/k.txt": "TOKEN=hunter2\n", "src/a.go": "package a\n"})
		claude := t.TempDir()
		args := []string{"-p", "go", "--permission-mode", "yolo", "--sandbox=false", "--output-format", "stream-json"}
		if rules {
			writeFiles(t, claude, map[string]string{"settings.json": `{"permissions": {"deny": ["Read(./secrets/**)"]}}`})
			args = append(args, "--deny", `read_file:\.env`)
		}
		var turns []fakellm.Turn
		for _, id := range order {
			turns = append(turns, call(id, calls[id][0], calls[id][1]))
		}
		_, environ := fakeModel(t, append(turns, say("Done."))...)
		r := gantry(t, dir, append(environ, "CLAUDE_CONFIG_DIR="+claude), args...)
		if r.code != 0 {
			t.Fatalf("exit %d\n%s\n%s", r.code, r.stdout, r.stderr)
		}
		results := map[string]string{}
		for _, l := range strings.Split(r.stdout, "\n") {
			var m map[string]any
			if json.Unmarshal([]byte(l), &m) == nil && m["type"] == "tool_finished" {
				results[m["id"].(string)] = m["output"].(string)
			}
		}
		for _, id := range order {
			leaked := strings.Contains(results[id], "hunter2")
			if !rules && !leaked {
				t.Errorf("with no rule %s (%s) does not leak, so it proves nothing: %q", id, calls[id][0], results[id])
			}
			if rules && leaked {
				t.Errorf("under the rules %s (%s) leaked: %q", id, calls[id][0], results[id])
			}
		}
		if rules {
			for id, want := range map[string]string{"g1": `[skipped .env: denied by read_file:\.env from --deny]`,
				"g2": "[skipped secrets/k.txt: denied by read_file:secrets/", "e1": `read_file:\.env`, "p1": `read_file:\.env`} {
				if !strings.Contains(results[id], want) {
					t.Errorf("%s: %q, want it to say %q", id, results[id], want)
				}
			}
		}
	}
}
