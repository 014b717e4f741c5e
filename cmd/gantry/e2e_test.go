package main

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/gantry-dev/gantry/internal/llm/fakellm"
	"github.com/gantry-dev/gantry/internal/testenv"
)

// binary is the gantry built once for the end-to-end tests.
var binary string

func TestMain(m *testing.M) {
	dir, err := os.MkdirTemp("", "gantry-e2e-")
	if err != nil {
		panic(err)
	}
	binary = filepath.Join(dir, "gantry")
	out, err := exec.Command("go", "build", "-buildvcs=auto", "-o", binary, ".").CombinedOutput()
	if err != nil {
		os.RemoveAll(dir)
		panic("building gantry: " + err.Error() + "\n" + string(out))
	}
	code := m.Run()
	os.RemoveAll(dir)
	os.Exit(code)
}

// env is a clean environment for the binary: no real keys, private config and data.
func env(t *testing.T, extra ...string) []string {
	t.Helper()
	home := t.TempDir()
	var e []string
	for _, kv := range os.Environ() {
		k, _, _ := strings.Cut(kv, "=")
		switch {
		case strings.HasPrefix(k, "ANTHROPIC_"), strings.HasPrefix(k, "OPENAI_"), strings.HasPrefix(k, "GANTRY_"),
			strings.HasPrefix(k, "XDG_"), strings.HasPrefix(k, "CLAUDE_"):
			continue
		}
		e = append(e, kv)
	}
	e = append(e, "GANTRY_DATA_DIR="+filepath.Join(home, "data"), "GANTRY_CONFIG_DIR="+filepath.Join(home, "config"),
		"CLAUDE_CONFIG_DIR="+filepath.Join(home, "claude"), "NO_COLOR=1")
	return append(e, extra...)
}

type outcome struct {
	stdout, stderr string
	code           int
}

func gantry(t *testing.T, dir string, environ []string, args ...string) outcome {
	t.Helper()
	return gantryOf(t, binary, dir, environ, args...)
}

// gantryOf runs the gantry binary bin as gantry runs the one built here.
func gantryOf(t *testing.T, bin, dir string, environ []string, args ...string) outcome {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, bin, args...)
	cmd.Dir = dir
	cmd.Env = environ
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	err := cmd.Run()
	r := outcome{stdout: out.String(), stderr: errb.String()}
	if ee, ok := err.(*exec.ExitError); ok {
		r.code = ee.ExitCode()
	} else if err != nil {
		t.Fatalf("running gantry: %v", err)
	}
	return r
}

// goModule writes a tiny Go module whose test fails until Add adds.
func goModule(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	files := map[string]string{
		"go.mod":      "module demo\n\ngo 1.22\n",
		"add.go":      "package demo\n\n// Add returns the sum of a and b.\nfunc Add(a, b int) int {\n\treturn a - b\n}\n",
		"add_test.go": "package demo\n\nimport \"testing\"\n\nfunc TestAdd(t *testing.T) {\n\tif got := Add(2, 3); got != 5 {\n\t\tt.Fatalf(\"Add(2, 3) = %d\", got)\n\t}\n}\n",
	}
	for name, body := range files {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

func fixScript() []fakellm.Turn {
	return []fakellm.Turn{
		{Parts: []fakellm.Part{fakellm.Text("I will read the code first."), fakellm.ToolCall("c1", "read_file", `{"path":"add.go"}`)}},
		{Parts: []fakellm.Part{fakellm.ToolCall("c2", "edit_file", `{"path":"add.go","edits":[{"old":"return a - b","new":"return a + b"}]}`)}},
		{Parts: []fakellm.Part{fakellm.ToolCall("c3", "bash", `{"command":"go test ./..."}`)}},
		{Parts: []fakellm.Part{fakellm.Text("Fixed: Add now adds, and go test passes.")}},
	}
}

func TestPrintModeFixesAFailingTest(t *testing.T) {
	srv := fakellm.New(fixScript()...)
	defer srv.Close()
	dir := goModule(t)
	r := gantry(t, dir, env(t, "ANTHROPIC_BASE_URL="+srv.URL(), "ANTHROPIC_API_KEY=test-key"),
		"-p", "fix the failing test", "--permission-mode", "accept-edits", "--allow", `bash:go test.*`)
	if r.code != 0 {
		t.Fatalf("exit %d\nstdout:\n%s\nstderr:\n%s", r.code, r.stdout, r.stderr)
	}
	got, _ := os.ReadFile(filepath.Join(dir, "add.go"))
	if !strings.Contains(string(got), "return a + b") {
		t.Fatalf("the edit is not on disk:\n%s", got)
	}
	for _, want := range []string{
		"I will read the code first.\n📄 read_file: add.go\n  package demo\n",
		"  +\treturn a + b\n🛠️ bash: go test ./...\n  ok  \tdemo\t",
		// Seed 000: the counters once, after the turn, summed over its four responses.
		"Fixed: Add now adds, and go test passes.\n⚙ 1 command(s)  📝 2 file op(s)\n",
	} {
		if !strings.Contains(r.stdout, want) {
			t.Errorf("stdout lacks %q:\n%s", want, r.stdout)
		}
	}
	if n := strings.Count(r.stdout, "file op(s)"); n != 1 {
		t.Errorf("%d counter lines, want one after the turn:\n%s", n, r.stdout)
	}
	reqs := srv.Requests()
	if len(reqs) != 4 {
		t.Fatalf("%d requests, want 4", len(reqs))
	}
	last, _ := json.Marshal(reqs[3].Body)
	if !strings.Contains(string(last), `ok  \tdemo`) || !strings.Contains(string(last), `"tool_use_id":"c3"`) {
		t.Errorf("the go test result did not reach the model: %s", last)
	}
}

func TestPrintModeStreamJSON(t *testing.T) {
	srv := fakellm.New(fixScript()...)
	defer srv.Close()
	dir := goModule(t)
	r := gantry(t, dir, env(t, "ANTHROPIC_BASE_URL="+srv.URL(), "ANTHROPIC_API_KEY=k"),
		"-p", "fix the failing test", "--permission-mode", "yolo", "--output-format", "stream-json")
	if r.code != 0 {
		t.Fatalf("exit %d: %s", r.code, r.stderr)
	}
	var kinds []string
	var result map[string]any
	var finished []map[string]any
	for _, line := range strings.Split(strings.TrimSpace(r.stdout), "\n") {
		var m map[string]any
		if err := json.Unmarshal([]byte(line), &m); err != nil {
			t.Fatalf("not one JSON object per line: %q", line)
		}
		k := m["type"].(string)
		if k != "text_delta" && (len(kinds) == 0 || kinds[len(kinds)-1] != k) {
			kinds = append(kinds, k)
		}
		switch k {
		case "result":
			result = m
		case "tool_finished":
			finished = append(finished, m)
		}
	}
	want := "system tool_drafting usage tool_started tool_running tool_finished step_ended tool_drafting usage tool_started tool_running tool_finished step_ended tool_drafting usage tool_started tool_running tool_finished step_ended usage turn_ended result"
	if strings.Join(kinds, " ") != want {
		t.Errorf("event kinds:\n got %s\nwant %s", strings.Join(kinds, " "), want)
	}
	if len(finished) != 3 || finished[1]["diff"] == nil || !strings.Contains(finished[2]["output"].(string), "ok") {
		t.Errorf("tool_finished events: %v", finished)
	}
	if result["result"] != "Fixed: Add now adds, and go test passes." || result["num_turns"].(float64) != 4 || result["is_error"] != false {
		t.Errorf("result: %v", result)
	}
	if result["session_id"] == "" || result["usage"].(map[string]any)["input_tokens"].(float64) <= 0 {
		t.Errorf("result lacks session or usage: %v", result)
	}
}

func TestPrintModeJSONAndEveryProvider(t *testing.T) {
	for _, p := range []struct{ provider, base, key string }{
		{"anthropic", "ANTHROPIC_BASE_URL", "ANTHROPIC_API_KEY"},
		{"openai", "OPENAI_BASE_URL", "OPENAI_API_KEY"},
		{"openai-chat", "OPENAI_BASE_URL", "OPENAI_API_KEY"},
	} {
		t.Run(p.provider, func(t *testing.T) {
			srv := fakellm.New(
				fakellm.Turn{Parts: []fakellm.Part{fakellm.ToolCall("r1", "read_file", `{"path":"note.txt"}`)}},
				fakellm.Turn{Parts: []fakellm.Part{fakellm.Text("The note says hello.")}},
			)
			defer srv.Close()
			dir := t.TempDir()
			os.WriteFile(filepath.Join(dir, "note.txt"), []byte("hello\n"), 0o644)
			base := srv.URL()
			if p.provider != "anthropic" {
				base += "/v1"
			}
			r := gantry(t, dir, env(t, p.base+"="+base, p.key+"=k"), "-p", "what does the note say", "--provider", p.provider, "--model", "test-model", "--output-format", "json")
			if r.code != 0 {
				t.Fatalf("exit %d: %s", r.code, r.stderr)
			}
			var res map[string]any
			if err := json.Unmarshal([]byte(r.stdout), &res); err != nil {
				t.Fatalf("json output: %v\n%s", err, r.stdout)
			}
			if res["result"] != "The note says hello." || res["model"] != "test-model" {
				t.Fatalf("result %v", res)
			}
			body, _ := json.Marshal(srv.Requests()[1].Body)
			if !strings.Contains(string(body), `hello\n`) {
				t.Fatalf("the file content did not reach the model: %s", body)
			}
		})
	}
}

func TestNothingConfigured(t *testing.T) {
	r := gantry(t, t.TempDir(), env(t), "-p", "hello")
	if r.code == 0 || strings.Count(strings.TrimSpace(r.stderr), "\n") != 0 || !strings.Contains(r.stderr, "ANTHROPIC_API_KEY") {
		t.Fatalf("exit %d, stderr %q", r.code, r.stderr)
	}
}

// With --refuse-questions, print mode refuses what it would ask to the model (naming
// the flag that allows it) and goes on.
func TestPrintModeRefusesWhatItWouldAsk(t *testing.T) {
	srv := fakellm.New(
		fakellm.Turn{Parts: []fakellm.Part{fakellm.ToolCall("b1", "bash", `{"command":"touch made-it"}`)}},
		fakellm.Turn{Parts: []fakellm.Part{fakellm.Text("I could not run it.")}},
	)
	defer srv.Close()
	dir := t.TempDir()
	r := gantry(t, dir, env(t, "ANTHROPIC_BASE_URL="+srv.URL(), "ANTHROPIC_API_KEY=k"), "-p", "make a file", "--output-format", "json", "--refuse-questions")
	if r.code != 0 {
		t.Fatalf("exit %d: %s", r.code, r.stderr)
	}
	if _, err := os.Stat(filepath.Join(dir, "made-it")); err == nil {
		t.Fatal("the refused command ran")
	}
	body, _ := json.Marshal(srv.Requests()[1].Body)
	if !strings.Contains(string(body), "--allow 'bash:") {
		t.Fatalf("the refusal does not name the flag: %s", body)
	}
	var res map[string]any
	json.Unmarshal([]byte(r.stdout), &res)
	if d, _ := res["permission_denials"].([]any); len(d) != 1 {
		t.Fatalf("permission_denials = %v", res["permission_denials"])
	}
}

func TestContinueAndSessions(t *testing.T) {
	srv := fakellm.New(
		fakellm.Turn{Parts: []fakellm.Part{fakellm.Text("The secret word is plum.")}},
		fakellm.Turn{Parts: []fakellm.Part{fakellm.Text("You asked for the secret word.")}},
	)
	defer srv.Close()
	dir := t.TempDir()
	e := env(t, "ANTHROPIC_BASE_URL="+srv.URL(), "ANTHROPIC_API_KEY=k")
	if r := gantry(t, dir, e, "-p", "tell me a secret word"); r.code != 0 {
		t.Fatalf("first run: %s", r.stderr)
	}
	if r := gantry(t, dir, e, "-p", "--continue", "what did I ask?"); r.code != 0 {
		t.Fatalf("second run: %s", r.stderr)
	}
	body, _ := json.Marshal(srv.Requests()[1].Body)
	for _, want := range []string{"tell me a secret word", "The secret word is plum.", "what did I ask?"} {
		if !strings.Contains(string(body), want) {
			t.Errorf("the continued request lacks %q", want)
		}
	}
	r := gantry(t, dir, e, "sessions")
	if r.code != 0 || !strings.Contains(r.stdout, "tell me a secret word") || !strings.Contains(r.stdout, dir) {
		t.Fatalf("sessions: %d %s %s", r.code, r.stdout, r.stderr)
	}
}

func TestKill9MidTurnThenResume(t *testing.T) {
	srv := fakellm.New(
		fakellm.Turn{Parts: []fakellm.Part{fakellm.ToolCall("s1", "bash", `{"command":"echo first-step-done"}`)}},
		fakellm.Turn{Parts: []fakellm.Part{fakellm.Text("working on it, slowly")}, StallAfter: 3},
	)
	defer srv.Close()
	dir := t.TempDir()
	e := env(t, "ANTHROPIC_BASE_URL="+srv.URL(), "ANTHROPIC_API_KEY=k")
	cmd := exec.Command(binary, "-p", "do the long thing", "--permission-mode", "yolo")
	cmd.Dir, cmd.Env = dir, e
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	// Kill gantry mid-turn: the first step's result is in, and the second request's
	// stream has sent all it will (some text) and hangs.
	select {
	case <-srv.Stalled(1):
	case <-time.After(30 * time.Second):
		_ = cmd.Process.Kill()
		_ = cmd.Wait()
		t.Fatalf("the second model request's stream did not begin within 30 s (%d requests)", len(srv.Requests()))
	}
	if n := len(srv.Requests()); n != 2 {
		t.Fatalf("%d model requests before the kill, want 2", n)
	}
	_ = cmd.Process.Signal(syscall.SIGKILL)
	_ = cmd.Wait()

	srv.Append(fakellm.Turn{Parts: []fakellm.Part{fakellm.Text("Resumed and finished.")}})
	r := gantry(t, dir, e, "-p", "--continue", "please go on")
	if r.code != 0 || !strings.Contains(r.stdout, "Resumed and finished.") {
		t.Fatalf("resume: exit %d\n%s\n%s", r.code, r.stdout, r.stderr)
	}
	body, _ := json.Marshal(srv.Requests()[2].Body)
	for _, want := range []string{"do the long thing", "first-step-done", "please go on"} {
		if !strings.Contains(string(body), want) {
			t.Errorf("the resumed request lacks %q: %s", want, body)
		}
	}
}

func TestExitStopsBackgroundTasks(t *testing.T) {
	marker := "317.25"
	srv := fakellm.New(
		fakellm.Turn{Parts: []fakellm.Part{fakellm.ToolCall("g1", "bash", `{"command":"sleep `+marker+`","run_in_background":true}`)}},
		fakellm.Turn{Parts: []fakellm.Part{fakellm.Text("Started it.")}},
	)
	defer srv.Close()
	r := gantry(t, t.TempDir(), env(t, "ANTHROPIC_BASE_URL="+srv.URL(), "ANTHROPIC_API_KEY=k"), "-p", "start a server", "--permission-mode", "yolo")
	if r.code != 0 {
		t.Fatalf("exit %d: %s", r.code, r.stderr)
	}
	if pids := processesWith(marker); len(pids) > 0 {
		for _, p := range pids {
			syscall.Kill(p, syscall.SIGKILL)
		}
		t.Fatalf("background task left running after exit: %v", pids)
	}
}

// processesWith lists the processes whose command line contains s.
func processesWith(s string) []int {
	entries, _ := os.ReadDir("/proc")
	var pids []int
	for _, e := range entries {
		pid, err := strconv.Atoi(e.Name())
		if err != nil || pid == os.Getpid() {
			continue
		}
		b, err := os.ReadFile(filepath.Join("/proc", e.Name(), "cmdline"))
		if err == nil && strings.Contains(string(bytes.ReplaceAll(b, []byte{0}, []byte{' '})), s) {
			pids = append(pids, pid)
		}
	}
	return pids
}

func TestResumeByIDAndMemory(t *testing.T) {
	srv := fakellm.New(
		fakellm.Turn{Parts: []fakellm.Part{fakellm.Text("First answer.")}},
		fakellm.Turn{Parts: []fakellm.Part{fakellm.Text("Second answer.")}},
	)
	defer srv.Close()
	dir := t.TempDir()
	os.Mkdir(filepath.Join(dir, ".git"), 0o755)
	os.WriteFile(filepath.Join(dir, "AGENTS.md"), []byte("Always answer in haiku.\n@docs/style.md\n"), 0o644)
	os.MkdirAll(filepath.Join(dir, "docs"), 0o755)
	os.WriteFile(filepath.Join(dir, "docs", "style.md"), []byte("Use British spelling.\n"), 0o644)
	e := env(t, "ANTHROPIC_BASE_URL="+srv.URL(), "ANTHROPIC_API_KEY=k")
	if r := gantry(t, dir, e, "-p", "first question"); r.code != 0 {
		t.Fatalf("first run: %s", r.stderr)
	}
	first, _ := json.Marshal(srv.Requests()[0].Body["system"])
	for _, want := range []string{"Always answer in haiku.", "Use British spelling.", dir} {
		if !strings.Contains(string(first), want) {
			t.Errorf("the system prompt lacks %q: %s", want, first)
		}
	}
	r := gantry(t, dir, e, "sessions", "--json")
	var list []struct{ ID string }
	if err := json.Unmarshal([]byte(r.stdout), &list); err != nil || len(list) != 1 {
		t.Fatalf("sessions --json: %v %s", err, r.stdout)
	}
	other := t.TempDir() // resuming by id works from any folder
	if r := gantry(t, other, e, "-p", "--resume", list[0].ID[:8], "second question"); r.code != 0 {
		t.Fatalf("resume: %s", r.stderr)
	}
	body, _ := json.Marshal(srv.Requests()[1].Body["messages"])
	if !strings.Contains(string(body), "first question") || !strings.Contains(string(body), "First answer.") {
		t.Fatalf("the resumed request lacks the history: %s", body)
	}
	if r := gantry(t, other, e, "-p", "--resume", "zzzzzzzz", "x"); r.code == 0 || !strings.Contains(r.stderr, "zzzzzzzz") {
		t.Fatalf("unknown session: exit %d, %q", r.code, r.stderr)
	}
}

func TestBadConfigNamesFileLineAndKey(t *testing.T) {
	dir := t.TempDir()
	os.MkdirAll(filepath.Join(dir, ".gantry"), 0o755)
	path := filepath.Join(dir, ".gantry", "config.yaml")
	os.WriteFile(path, []byte("model: m\nbash:\n  timeout: 30\nmaxOutptu: 5\n"), 0o644)
	r := gantry(t, dir, env(t, "ANTHROPIC_API_KEY=k"), "-p", "hi")
	if r.code == 0 || !strings.Contains(r.stderr, path+":4") || !strings.Contains(r.stderr, "maxOutptu") {
		t.Fatalf("exit %d, stderr %q", r.code, r.stderr)
	}
}

func TestInterruptKillsTheRunningCommand(t *testing.T) {
	marker := "318.75"
	srv := fakellm.New(fakellm.Turn{Parts: []fakellm.Part{fakellm.ToolCall("s1", "bash", `{"command":"sleep `+marker+`"}`)}})
	defer srv.Close()
	cmd := exec.Command(binary, "-p", "wait a long time", "--permission-mode", "yolo")
	cmd.Dir, cmd.Env = t.TempDir(), env(t, "ANTHROPIC_BASE_URL="+srv.URL(), "ANTHROPIC_API_KEY=k")
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(30 * time.Second)
	for len(processesWith(marker)) == 0 && time.Now().Before(deadline) {
		time.Sleep(10 * time.Millisecond)
	}
	if len(processesWith(marker)) == 0 {
		cmd.Process.Kill()
		t.Fatal("the command never started")
	}
	t.Cleanup(func() { _ = cmd.Process.Kill() }) // should it outlive the bound below
	start := time.Now()
	cmd.Process.Signal(os.Interrupt)
	var err error
	testenv.Done(t, func() { err = cmd.Wait() }, testenv.Bound, "gantry to exit after its interrupt")
	if ee, ok := err.(*exec.ExitError); !ok || ee.ExitCode() != 130 {
		t.Fatalf("exit: %v, stderr %q", err, stderr.String())
	}
	if time.Since(start) > 10*time.Second {
		t.Fatalf("gantry took %v to stop", time.Since(start))
	}
	if pids := processesWith(marker); len(pids) > 0 {
		for _, p := range pids {
			syscall.Kill(p, syscall.SIGKILL)
		}
		t.Fatalf("the command outlived the interrupt: %v", pids)
	}
}

// --interactive asks at the terminal: `script` gives gantry a pseudo-terminal and
// types the answers.
func TestInteractiveAsksAtTheTerminal(t *testing.T) {
	testenv.Need(t, "script")
	for _, c := range []struct {
		answer  string
		made    bool
		inReply string
	}{{"y", true, "(no output)"}, {"n", false, "[command rejected by the user]"}} {
		srv := fakellm.New(
			fakellm.Turn{Parts: []fakellm.Part{fakellm.ToolCall("b1", "bash", `{"command":"touch made-it"}`)}},
			fakellm.Turn{Parts: []fakellm.Part{fakellm.Text("done")}},
		)
		dir := t.TempDir()
		ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
		cmd := exec.CommandContext(ctx, "script", "-qec", binary+" -p 'make a file' --interactive", "/dev/null")
		cmd.Dir, cmd.Env = dir, env(t, "ANTHROPIC_BASE_URL="+srv.URL(), "ANTHROPIC_API_KEY=k")
		cmd.Stdin = strings.NewReader(c.answer + "\n")
		out, err := cmd.CombinedOutput()
		cancel()
		if err != nil {
			t.Fatalf("%s: %v\n%s", c.answer, err, out)
		}
		if !strings.Contains(string(out), "[y] allow once") {
			t.Errorf("%s: no question at the terminal:\n%s", c.answer, out)
		}
		_, statErr := os.Stat(filepath.Join(dir, "made-it"))
		if (statErr == nil) != c.made {
			t.Errorf("answer %s: file made = %v", c.answer, statErr == nil)
		}
		body, _ := json.Marshal(srv.Requests()[1].Body)
		if !strings.Contains(string(body), c.inReply) {
			t.Errorf("answer %s: the model was not told %q: %s", c.answer, c.inReply, body)
		}
		srv.Close()
	}
}

// --interactive shows a plan with the rules approving it grants, a broad one with its
// warning; once approved, the rule holds for the session (the command asks nothing).
func TestInteractivePlanShowsItsRules(t *testing.T) {
	testenv.Need(t, "script")
	srv := fakellm.New(
		fakellm.Turn{Parts: []fakellm.Part{fakellm.ToolCall("p1", "exit_plan_mode", `{"plan":"1. make a file","allowed_prompts":["bash"]}`)}},
		fakellm.Turn{Parts: []fakellm.Part{fakellm.ToolCall("b1", "bash", `{"command":"touch made-it"}`)}},
		fakellm.Turn{Parts: []fakellm.Part{fakellm.Text("done")}},
	)
	defer srv.Close()
	dir := t.TempDir()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, "script", "-qec", binary+" -p 'make a file' --interactive --permission-mode plan", "/dev/null")
	cmd.Dir, cmd.Env = dir, env(t, "ANTHROPIC_BASE_URL="+srv.URL(), "ANTHROPIC_API_KEY=k")
	cmd.Stdin = strings.NewReader("y\n")
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	text := strings.ReplaceAll(string(out), "\r\n", "\n")
	for _, want := range []string{"1. make a file", "for this session only", "  • bash\n    ⚠ allows every command without asking", "[y] approve"} {
		if !strings.Contains(text, want) {
			t.Errorf("the terminal lacks %q:\n%s", want, text)
		}
	}
	if strings.Contains(text, "[y] allow once") {
		t.Errorf("the command asked although the plan allowed bash:\n%s", text)
	}
	if _, err := os.Stat(filepath.Join(dir, "made-it")); err != nil {
		t.Errorf("the command did not run: %v", err)
	}
}

func TestPlanModeDeclaresOnlyReadTools(t *testing.T) {
	srv := fakellm.New(fakellm.Turn{Parts: []fakellm.Part{fakellm.Text("Here is my plan.")}})
	defer srv.Close()
	r := gantry(t, t.TempDir(), env(t, "ANTHROPIC_BASE_URL="+srv.URL(), "ANTHROPIC_API_KEY=k"), "-p", "plan it", "--permission-mode", "plan")
	if r.code != 0 {
		t.Fatalf("exit %d: %s", r.code, r.stderr)
	}
	var names []string
	for _, tl := range srv.Requests()[0].Body["tools"].([]any) {
		names = append(names, tl.(map[string]any)["name"].(string))
	}
	got := strings.Join(names, " ")
	for _, absent := range []string{"bash", "write_file", "edit_file", "apply_patch", "task_kill", "register_hook"} {
		if strings.Contains(" "+got+" ", " "+absent+" ") {
			t.Errorf("plan mode declares %s: %s", absent, got)
		}
	}
	// ask_user and exit_plan_mode are not declared either: nobody answers in print
	// mode without -i (TestPrintModeWithoutAPersonDeclaresNoQuestions).
	for _, present := range []string{"read_file", "glob", "grep"} {
		if !strings.Contains(" "+got+" ", " "+present+" ") {
			t.Errorf("plan mode lacks %s: %s", present, got)
		}
	}
}

func TestRulesFileAndHooks(t *testing.T) {
	dir := t.TempDir()
	os.Mkdir(filepath.Join(dir, ".git"), 0o755)
	os.MkdirAll(filepath.Join(dir, ".gantry"), 0o755)
	os.WriteFile(filepath.Join(dir, ".gantry", "permissions.yaml"), []byte("permissions:\n  allow:\n    - \"bash:echo .*\"\n"), 0o644)
	os.WriteFile(filepath.Join(dir, "guard.sh"), []byte("#!/bin/sh\ncat > \"$GANTRY_PROJECT_DIR/hook-input.json\"\nif grep -q forbidden \"$GANTRY_PROJECT_DIR/hook-input.json\"; then echo 'the word forbidden is not allowed here' >&2; exit 2; fi\n"), 0o755)
	os.WriteFile(filepath.Join(dir, ".gantry", "config.yaml"), []byte("hooks:\n  PreToolUse:\n    - matcher: bash\n      hooks:\n        - type: command\n          command: sh guard.sh\n          timeout: 10\n"), 0o644)
	srv := fakellm.New(
		fakellm.Turn{Parts: []fakellm.Part{fakellm.ToolCall("a", "bash", `{"command":"echo allowed by the rules file"}`),
			fakellm.ToolCall("b", "bash", `{"command":"echo forbidden"}`), fakellm.ToolCall("c", "bash", `{"command":"touch x"}`)}},
		fakellm.Turn{Parts: []fakellm.Part{fakellm.Text("done")}},
	)
	defer srv.Close()
	r := gantry(t, dir, env(t, "ANTHROPIC_BASE_URL="+srv.URL(), "ANTHROPIC_API_KEY=k"), "-p", "go", "--output-format", "json", "--trust", "--refuse-questions")
	if r.code != 0 {
		t.Fatalf("exit %d: %s", r.code, r.stderr)
	}
	body, _ := json.Marshal(srv.Requests()[1].Body["messages"])
	for _, want := range []string{"allowed by the rules file", "blocked by a PreToolUse hook: the word forbidden is not allowed here", "bash was not run: it needs permission"} {
		if !strings.Contains(string(body), want) {
			t.Errorf("the model was not told %q: %s", want, body)
		}
	}
	in, err := os.ReadFile(filepath.Join(dir, "hook-input.json"))
	if err != nil || !strings.Contains(string(in), `"hook_event_name":"PreToolUse"`) || !strings.Contains(string(in), `"tool_name":"bash"`) {
		t.Errorf("hook stdin: %s %v", in, err)
	}

	os.WriteFile(filepath.Join(dir, ".gantry", "permissions.yaml"), []byte("permissions:\n  allow:\n    - \"bash:(\"\n"), 0o644)
	r = gantry(t, dir, env(t, "ANTHROPIC_BASE_URL="+srv.URL(), "ANTHROPIC_API_KEY=k"), "-p", "go", "--trust")
	if r.code == 0 || !strings.Contains(r.stderr, "permissions.yaml:3") || !strings.Contains(r.stderr, `bash:(`) {
		t.Fatalf("a bad rule must name the file, line and rule: exit %d, %q", r.code, r.stderr)
	}
}

func TestPromptReferences(t *testing.T) {
	srv := fakellm.New(fakellm.Turn{Parts: []fakellm.Part{fakellm.Text("read them")}})
	defer srv.Close()
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "note.txt"), []byte("the note's content\n"), 0o644)
	os.MkdirAll(filepath.Join(dir, ".gantry", "skills"), 0o755)
	os.WriteFile(filepath.Join(dir, ".gantry", "skills", "review.md"), []byte("---\ndescription: Review code.\n---\nReview $ARGUMENTS carefully.\n"), 0o644)
	r := gantry(t, dir, env(t, "ANTHROPIC_BASE_URL="+srv.URL(), "ANTHROPIC_API_KEY=k"), "-p", "look at @file:note.txt and @file:nope.txt\n@skill:review the parser")
	if r.code != 0 {
		t.Fatalf("exit %d: %s", r.code, r.stderr)
	}
	body, _ := json.Marshal(srv.Requests()[0].Body["messages"])
	for _, want := range []string{"the note's content", "Review the parser carefully.", "Base directory for this skill: " + filepath.Join(dir, ".gantry", "skills")} {
		if !strings.Contains(string(body), want) {
			t.Errorf("the prompt lacks %q: %s", want, body)
		}
	}
	if !strings.Contains(r.stdout, "⚠ @file:nope.txt") {
		t.Errorf("the missing file was not reported:\n%s", r.stdout)
	}
}

func TestToolCommand(t *testing.T) {
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "a.txt"), []byte("one\ntwo\nthree\n"), 0o644)
	r := gantry(t, dir, env(t), "tool", "read_file", `{"path":"a.txt","start":2,"end":2}`)
	if r.code != 0 || r.stdout != "two\n" {
		t.Fatalf("read_file: %d %q %q", r.code, r.stdout, r.stderr)
	}
	r = gantry(t, dir, env(t), "tool", "read_file", `{"path":"missing.txt"}`)
	if r.code != 1 || !strings.Contains(r.stdout, "missing.txt does not exist") {
		t.Fatalf("a failing tool: %d %q", r.code, r.stdout)
	}
	r = gantry(t, dir, env(t), "tool", "read_file", `{"path":3}`)
	if r.code != 2 || !strings.Contains(r.stderr, `argument "path" must be a string`) {
		t.Fatalf("bad arguments: %d %q", r.code, r.stderr)
	}
	if r = gantry(t, dir, env(t), "tool", "list"); r.code != 0 || !strings.Contains(r.stdout, "bash") {
		t.Fatalf("list: %d %q", r.code, r.stdout)
	}
}
