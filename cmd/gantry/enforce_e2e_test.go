package main

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

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
	r := gantry(t, dir, environ, "-p", "write them", "--permission-mode", "accept-edits", "--refuse-questions")
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

// kill -9 of gantry in the middle of a command kills everything the command started,
// setsid, nohup and double forks included: nothing writes after the session ended,
// and no process is left (checked in /proc) within a second.
func TestKill9LeavesNoProcess(t *testing.T) {
	marker := "318.5"
	script := `setsid sleep ` + marker + ` & nohup sleep ` + marker + ` >/dev/null 2>&1 & ( ( sleep ` + marker + ` & ) & ); (sleep 2; echo late > after) & sleep ` + marker
	in, _ := json.Marshal(map[string]string{"command": script})
	srv, environ := fakeModel(t, call("k1", "bash", string(in)), say("never"))
	dir := t.TempDir()
	cmd := exec.Command(binary, "-p", "run it", "--permission-mode", "yolo")
	cmd.Dir, cmd.Env = dir, environ
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(20 * time.Second)
	for len(processesWith("sleep "+marker)) < 4 {
		if time.Now().After(deadline) {
			_ = cmd.Process.Kill()
			_ = cmd.Wait()
			t.Fatalf("the command did not start its sleeps (%d requests)", len(srv.Requests()))
		}
		time.Sleep(10 * time.Millisecond)
	}
	_ = cmd.Process.Signal(syscall.SIGKILL)
	_ = cmd.Wait()
	// Every process of the command has the marker in its command line: the sleeps, and
	// bash and its subshells (forks, with bash's own command line), the late writer
	// among them. Once none is left, nothing can write any more: that, not a wait past
	// the writer's 2 s, shows that nothing wrote after the session ended.
	deadline = time.Now().Add(time.Second)
	for {
		left := processesWith(marker)
		if len(left) == 0 {
			break
		}
		if time.Now().After(deadline) {
			for _, p := range left {
				_ = syscall.Kill(p, syscall.SIGKILL)
			}
			t.Fatalf("processes %v outlived gantry's kill -9 by a second", left)
		}
		time.Sleep(10 * time.Millisecond)
	}
	if _, err := os.Stat(filepath.Join(dir, "after")); err == nil {
		t.Error("the command wrote after gantry was killed")
	}
}

// In a normal run, a background process that left the command's group is gone when
// the call ends.
func TestSetsidDoesNotOutliveTheCall(t *testing.T) {
	marker := "319.5"
	in, _ := json.Marshal(map[string]string{"command": "setsid sleep " + marker + " & echo started"})
	_, environ := fakeModel(t, call("s1", "bash", string(in)), say("done"))
	r := gantry(t, t.TempDir(), environ, "-p", "run it", "--permission-mode", "yolo")
	if r.code != 0 {
		t.Fatalf("exit %d: %s", r.code, r.stderr)
	}
	if left := processesWith("sleep " + marker); len(left) > 0 {
		for _, p := range left {
			_ = syscall.Kill(p, syscall.SIGKILL)
		}
		t.Fatalf("setsid sleep outlived the call: %v", left)
	}
}

// gantry doctor says what is in force here, and why where it falls back.
func TestDoctor(t *testing.T) {
	dir := t.TempDir()
	writeFiles(t, dir, map[string]string{".gantry/permissions.yaml": "permissions:\n  deny:\n    - \"bash:rm .*\"\n"})
	r := gantry(t, dir, env(t), "doctor")
	if r.code != 0 {
		t.Fatalf("exit %d: %s", r.code, r.stderr)
	}
	for _, want := range []string{"sandbox ", "exec supervisor ", "in force: 1 deny rule(s) name bash", "PID namespaces ", "session store ", "providers ", "language servers ", "debug adapters "} {
		if !strings.Contains(r.stdout, want) {
			t.Errorf("no %q in\n%s", want, r.stdout)
		}
	}
	// With bubblewrap out of PATH, the fallback and its reason.
	empty := t.TempDir()
	environ := append(env(t), "PATH="+empty)
	r = gantry(t, dir, environ, "doctor")
	if r.code != 0 || !strings.Contains(r.stdout, "bubblewrap (bwrap) is not installed") {
		t.Errorf("without bwrap: %d\n%s\n%s", r.code, r.stdout, r.stderr)
	}
	// And which guarantees are gone with it.
	if !strings.Contains(r.stdout, "With Landlock only") && !strings.Contains(r.stdout, "No sandbox can be made here") {
		t.Errorf("without bwrap, nothing said of what is lost:\n%s", r.stdout)
	}
}
