package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gantry-dev/gantry/internal/face"
	"github.com/gantry-dev/gantry/internal/llm/fakellm"
	"github.com/gantry-dev/gantry/internal/permission"
	"github.com/gantry-dev/gantry/internal/tool"
)

// jsonResult is the result object of --output-format json.
func jsonResult(t *testing.T, r outcome) map[string]any {
	t.Helper()
	var res map[string]any
	if err := json.Unmarshal([]byte(r.stdout), &res); err != nil {
		t.Fatalf("the json result %q: %v (stderr %q)", r.stdout, err, r.stderr)
	}
	return res
}

// needsPerson checks a run that ended on a question: exit 5, one line on stderr that
// names each of flags, the result's subtype and error saying the same.
func needsPerson(t *testing.T, r outcome, flags ...string) {
	t.Helper()
	if r.code != exitNeedsPerson {
		t.Fatalf("exit %d, want %d\nstdout %s\nstderr %s", r.code, exitNeedsPerson, r.stdout, r.stderr)
	}
	line := strings.TrimSpace(r.stderr)
	if strings.Count(line, "\n") != 0 || !strings.HasPrefix(line, "gantry: ") {
		t.Errorf("stderr is not one line: %q", r.stderr)
	}
	res := jsonResult(t, r)
	if res["subtype"] != "error_needs_person" || res["is_error"] != true || res["error"] != strings.TrimPrefix(line, "gantry: ") {
		t.Errorf("result: subtype %v, is_error %v, error %q; stderr %q", res["subtype"], res["is_error"], res["error"], line)
	}
	for _, f := range flags {
		if !strings.Contains(line, f) {
			t.Errorf("stderr does not name %s: %q", f, line)
		}
	}
}

// A permission question in print mode without -i ends the run at once with exit 5,
// naming the rule the question would have offered, the mode, and -i; the call does
// not run and the model is not asked again.
func TestHeadlessPermissionQuestionExits5(t *testing.T) {
	dir := t.TempDir()
	srv, environ := fakeModel(t, call("b1", "bash", `{"command":"go test ./... > ran.txt"}`), say("never"))
	r := gantry(t, dir, environ, "-p", "test it", "--output-format", "json")
	needsPerson(t, r, "--allow 'bash:go test", "--permission-mode yolo", "-i")
	if exists(dir, "ran.txt") {
		t.Error("the command that needed permission ran")
	}
	if n := len(srv.Requests()); n != 1 {
		t.Errorf("%d model requests, want 1: the run goes no further than the question", n)
	}
	if d, _ := jsonResult(t, r)["permission_denials"].([]any); len(d) != 1 {
		t.Errorf("permission_denials = %v, want the call asked about", d)
	}

	// An edit names accept-edits; stream-json ends with the same result.
	srv, environ = fakeModel(t, call("w1", "write_file", `{"path":"new.txt","content":"x\n"}`), say("never"))
	r = gantry(t, dir, environ, "-p", "write it", "--output-format", "stream-json")
	if r.code != exitNeedsPerson || !strings.Contains(r.stderr, "--permission-mode accept-edits") || exists(dir, "new.txt") {
		t.Fatalf("an edit: exit %d, stderr %q", r.code, r.stderr)
	}
	evs := streamEvents(t, r.stdout)
	if last := evs[len(evs)-1]; last["type"] != "result" || last["subtype"] != "error_needs_person" || !strings.Contains(last["error"].(string), "accept-edits") {
		t.Errorf("the last event: %v", last)
	}
	if n := len(srv.Requests()); n != 1 {
		t.Errorf("%d model requests after an edit's question", n)
	}

	// A protected path is asked in every mode: no mode is named, only its rule.
	_, environ = fakeModel(t, call("m1", "write_file", `{"path":".mcp.json","content":"{}"}`), say("never"))
	r = gantry(t, dir, environ, "-p", "plant", "--permission-mode", "yolo", "--output-format", "json")
	needsPerson(t, r, `--allow 'write_file:\.mcp\.json'`, "-i")
	if strings.Contains(r.stderr, "--permission-mode") || exists(dir, ".mcp.json") {
		t.Errorf("a protected path: %q", r.stderr)
	}

	// A hook's question: only a person answers it.
	hooked := t.TempDir()
	writeFiles(t, hooked, map[string]string{".git/HEAD": "ref: refs/heads/main\n",
		".claude/settings.json": `{"hooks": {"PreToolUse": [{"matcher": "Bash", "hooks": [{"type": "command", "command": "echo '{\"hookSpecificOutput\":{\"hookEventName\":\"PreToolUse\",\"permissionDecision\":\"ask\",\"permissionDecisionReason\":\"deploys are asked\"}}'"}]}]}}`})
	_, environ = fakeModel(t, call("d1", "bash", `{"command":"echo deploy > ran.txt"}`), say("never"))
	r = gantry(t, hooked, environ, "-p", "deploy", "--permission-mode", "yolo", "--sandbox=false", "--trust", "--output-format", "json")
	needsPerson(t, r, "a hook asks", "deploys are asked", "-i")
	if strings.Contains(r.stderr, "--allow") || exists(hooked, "ran.txt") {
		t.Errorf("a hook's question: %q", r.stderr)
	}

	// The flag it names answers it.
	_, environ = fakeModel(t, call("b1", "bash", `{"command":"echo ok > ran.txt"}`), say("done"))
	if r := gantry(t, dir, environ, "-p", "run it", "--allow", "bash:echo .*"); r.code != 0 || !exists(dir, "ran.txt") {
		t.Errorf("with --allow: exit %d %q", r.code, r.stderr)
	}
}

// A folder whose project files wait for its trust, in print mode without -i, ends
// with exit 5 naming --trust before anything of the folder runs or the model is
// asked; --trust=false goes on without them (the old notice), --trust runs them.
func TestHeadlessTrustQuestionExits5(t *testing.T) {
	dir := trustProject(t)
	srv, environ := fakeModel(t, say("done"), say("done"), say("done"))
	r := gantry(t, dir, environ, "-p", "go", "--output-format", "json")
	needsPerson(t, r, "--trust ", "--trust=false", "-i")
	if exists(dir, "server-ran") || exists(dir, "hook-ran") || len(srv.Requests()) != 0 {
		t.Errorf("ran before the trust was settled: server %v, hook %v, %d requests", exists(dir, "server-ran"), exists(dir, "hook-ran"), len(srv.Requests()))
	}
	r = gantry(t, dir, environ, "-p", "go", "--trust=false")
	if r.code != 0 || exists(dir, "server-ran") || exists(dir, "hook-ran") || !strings.Contains(r.stdout+r.stderr, "not trusted") {
		t.Errorf("--trust=false: exit %d, server %v, hook %v\n%s%s", r.code, exists(dir, "server-ran"), exists(dir, "hook-ran"), r.stdout, r.stderr)
	}
	if r = gantry(t, dir, environ, "-p", "go", "--trust"); r.code != 0 || !exists(dir, "hook-ran") {
		t.Errorf("--trust: exit %d, hook %v: %s", r.code, exists(dir, "hook-ran"), r.stderr)
	}
}

// The questions the model cannot reach in print mode (ask_user and exit_plan_mode
// are not declared without -i) end the run too, naming -i, should anything ask them;
// a question ends the run's context at once, so nothing waits.
func TestHeadlessAskerEndsTheRun(t *testing.T) {
	for _, c := range []struct {
		name string
		ask  func(h *headless, ctx context.Context) error
		want []string
	}{
		{"ask_user", func(h *headless, ctx context.Context) error {
			_, err := h.AskUser(ctx, []face.Question{{Question: "which?"}})
			return err
		}, []string{"-i"}},
		{"plan", func(h *headless, ctx context.Context) error {
			_, err := h.ApprovePlan(ctx, face.PlanRequest{Plan: "1. do it"})
			return err
		}, []string{"-i"}},
		{"permission", func(h *headless, ctx context.Context) error {
			_, err := h.AskPermission(ctx, face.PermissionRequest{Call: tool.Call{Name: "bash", Level: tool.LevelExec},
				Reason: "default mode asks before exec tools", Always: permission.Grant{Rules: []string{"bash:go test( .*)?"}}})
			return err
		}, []string{"--allow 'bash:go test( .*)?'", "--permission-mode yolo", "-i"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			h := &headless{}
			ctx := h.bind(context.Background())
			defer h.stop()
			if !face.Nobody(h) {
				t.Fatal("the headless asker does not say nobody answers: the core would declare the question tools")
			}
			if err := c.ask(h, ctx); !errors.Is(err, face.ErrNoHuman) {
				t.Fatalf("err %v, want ErrNoHuman", err)
			}
			select {
			case <-ctx.Done():
			default:
				t.Fatal("the question did not end the run's context")
			}
			q := h.question()
			for _, w := range c.want {
				if !strings.Contains(q, w) {
					t.Errorf("%q does not name %s", q, w)
				}
			}
		})
	}
}

// The exit status names the outcome, and the result's subtype the same: 0 success,
// 1 an error, 3 max turns, 4 blocked by a hook or the model's refusal, 9 the store.
// (2: TestUsageErrorsExit2; 5: the tests above; 130: TestInterruptKillsTheRunningCommand.)
func TestPrintModeExitCodes(t *testing.T) {
	for _, c := range []struct {
		name    string
		turns   []fakellm.Turn
		args    []string
		files   map[string]string
		code    int
		subtype string
		stderr  string
	}{
		{"success", []fakellm.Turn{say("fine")}, nil, nil, exitSuccess, "success", ""},
		{"error", []fakellm.Turn{{Status: 400}}, nil, nil, exitError, "error_during_execution", "400"},
		{"max turns", []fakellm.Turn{call("r1", "read_file", `{"path":"a.txt"}`), say("never")}, []string{"--max-turns", "1"}, map[string]string{"a.txt": "a\n"},
			exitMaxTurns, "error_max_turns", "--max-turns"},
		{"refusal", []fakellm.Turn{{Parts: []fakellm.Part{fakellm.Text("I will not.")}, StopReason: "refusal"}}, nil, nil,
			exitBlocked, "error_blocked", "refusal"},
		{"hook", []fakellm.Turn{say("never")}, []string{"--trust"}, map[string]string{
			".git/HEAD":             "ref: refs/heads/main\n",
			".claude/settings.json": `{"hooks": {"UserPromptSubmit": [{"hooks": [{"type": "command", "command": "echo no prompts today >&2; exit 2"}]}]}}`,
		}, exitBlocked, "error_blocked", "no prompts today"},
	} {
		t.Run(c.name, func(t *testing.T) {
			dir := t.TempDir()
			writeFiles(t, dir, c.files)
			_, environ := fakeModel(t, c.turns...)
			r := gantry(t, dir, environ, append([]string{"-p", "go", "--output-format", "json"}, c.args...)...)
			if r.code != c.code || !strings.Contains(r.stderr, c.stderr) {
				t.Fatalf("exit %d, want %d; stderr %q, want %q", r.code, c.code, r.stderr, c.stderr)
			}
			if res := jsonResult(t, r); res["subtype"] != c.subtype || res["schema_version"] != "1" {
				t.Errorf("subtype %v, want %s; schema_version %v", res["subtype"], c.subtype, res["schema_version"])
			}
		})
	}
}

// A damaged session store stops print mode before the model with exit 9.
func TestPrintModeStoreExits9(t *testing.T) {
	_, environ := fakeModel(t, say("never"))
	db := filepath.Join(envValue(environ, "GANTRY_DATA_DIR"), "sessions.db")
	if err := os.MkdirAll(filepath.Dir(db), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(db, bytes.Repeat([]byte("not a database\x00"), 4096), 0o600); err != nil {
		t.Fatal(err)
	}
	if r := gantry(t, t.TempDir(), environ, "-p", "hello"); r.code != exitStore || !strings.Contains(r.stderr, "damaged") {
		t.Errorf("exit %d, want %d: %q", r.code, exitStore, r.stderr)
	}
}
