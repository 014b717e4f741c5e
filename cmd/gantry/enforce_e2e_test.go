package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gantry-dev/gantry/internal/llm/fakellm"
)

// In accept-edits, print mode refuses writes to protected paths with a sentence
// naming the rule that allows them, and writes the rest of the project.
func TestAcceptEditsRefusesProtectedPaths(t *testing.T) {
	home := t.TempDir()
	dir := t.TempDir()
	if err := os.Mkdir(filepath.Join(dir, ".git"), 0o755); err != nil {
		t.Fatal(err)
	}
	outside := filepath.Join(filepath.Dir(dir), "outside-"+filepath.Base(dir))
	t.Cleanup(func() { os.Remove(outside) })
	targets := []string{".gantry/permissions.yaml", ".gantry/config.yaml", filepath.Join(home, ".bashrc"), "../" + filepath.Base(outside), "src/x"}
	var turns []fakellm.Turn
	for i, p := range targets {
		in, _ := json.Marshal(map[string]string{"path": p, "content": "permissions:\n  allow_all: true\n"})
		turns = append(turns, call("w"+string(rune('0'+i)), "write_file", string(in)))
	}
	turns = append(turns, say("done"))
	srv, environ := fakeModel(t, turns...)
	environ = append(environ, "HOME="+home)
	r := gantry(t, dir, environ, "-p", "write them", "--permission-mode", "accept-edits")
	if r.code != 0 {
		t.Fatalf("exit %d: %s", r.code, r.stderr)
	}
	for _, p := range []string{filepath.Join(dir, ".gantry/permissions.yaml"), filepath.Join(dir, ".gantry/config.yaml"), filepath.Join(home, ".bashrc"), outside} {
		if _, err := os.Stat(p); err == nil {
			t.Errorf("%s was written", p)
		}
	}
	if _, err := os.Stat(filepath.Join(dir, "src/x")); err != nil {
		t.Errorf("src/x was not written: %v", err)
	}
	for i := 1; i <= 4; i++ {
		text := requestText(t, srv, i)
		if !strings.Contains(text, "is protected") || !strings.Contains(text, "--allow 'write_file:") {
			t.Errorf("request %d does not say why nor how to allow it: %s", i, text[max(0, len(text)-600):])
		}
	}
}

// gantry tool holds to the project's deny rules — the parser's and the exec
// supervisor's — and says how to bypass them; --no-rules does.
func TestToolCommandAppliesDenyRules(t *testing.T) {
	dir := t.TempDir()
	writeFiles(t, dir, map[string]string{".gantry/permissions.yaml": "permissions:\n  deny:\n    - \"bash:rm .*\"\n    - \"write_file:secret/.*\"\n", "x": "x", "y": "y"})
	r := gantry(t, dir, env(t), "tool", "bash", `{"command":"rm x"}`)
	if r.code != 1 || !strings.Contains(r.stderr, "bash:rm .*") || !strings.Contains(r.stderr, "--no-rules") {
		t.Errorf("rm x: %d %q %q", r.code, r.stdout, r.stderr)
	}
	// Code the parser cannot read: the exec supervisor stops its rm.
	r = gantry(t, dir, env(t), "tool", "bash", `{"command":"perl -e 'system(\"rm\", \"y\")'"}`)
	if !strings.Contains(r.stdout, "[blocked by deny rule bash:rm .*: rm y]") || !strings.Contains(r.stderr, "⛔ blocked by deny rule bash:rm .*: rm y") {
		t.Errorf("perl's rm: %d %q %q", r.code, r.stdout, r.stderr)
	}
	r = gantry(t, dir, env(t), "tool", "write_file", `{"path":"./secret/k","content":"k"}`)
	if r.code != 1 || !strings.Contains(r.stderr, "write_file:secret/.*") {
		t.Errorf("write_file: %d %q", r.code, r.stderr)
	}
	for _, f := range []string{"x", "y"} {
		if _, err := os.Stat(filepath.Join(dir, f)); err != nil {
			t.Errorf("%s was removed", f)
		}
	}
	if r = gantry(t, dir, env(t), "tool", "--no-rules", "bash", `{"command":"rm x"}`); r.code != 0 {
		t.Errorf("--no-rules: %d %q", r.code, r.stderr)
	}
	if _, err := os.Stat(filepath.Join(dir, "x")); err == nil {
		t.Error("--no-rules did not run it")
	}
}
