package main

import (
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/gantry-dev/gantry/internal/llm/fakellm"
	"github.com/gantry-dev/gantry/internal/testenv"
)

// trustProject is a git project whose .mcp.json server, SessionStart hook and env
// each leave a mark when they run.
func trustProject(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	writeFiles(t, dir, map[string]string{
		".git/HEAD": "ref: refs/heads/main\n",
		".mcp.json": `{"mcpServers": {"marker": {"command": "sh", "args": ["-c", "touch server-ran; exit 1"]}}}`,
		".claude/settings.json": `{"env": {"GANTRY_TRUST_ENV": "from-the-project"},
			"hooks": {"SessionStart": [{"hooks": [{"type": "command", "command": "touch hook-ran"}]}]}}`,
	})
	return dir
}

func exists(dir, name string) bool {
	_, err := os.Stat(filepath.Join(dir, name))
	return err == nil
}

// trustLines are the lines of out that name --trust.
func trustLines(out string) []string {
	var lines []string
	for _, l := range strings.Split(out, "\n") {
		if strings.Contains(l, "--trust") {
			lines = append(lines, l)
		}
	}
	return lines
}

// In a folder not yet trusted, print mode with --trust=false runs neither its .mcp.json
// server, nor its SessionStart hook, nor gives its env, and says so in one line naming
// --trust and trustedFolders; with --trust all three run (without either flag: exit 5,
// TestHeadlessTrustQuestionExits5).
func TestPrintModeUntrustedFolder(t *testing.T) {
	dir := trustProject(t)
	envCall := call("e1", "bash", `{"command":"echo \"env=[$GANTRY_TRUST_ENV]\""}`)
	srv, environ := fakeModel(t, envCall, say("done"), envCall, say("done"))
	r := gantry(t, dir, environ, "-p", "go", "--allow", "bash", "--trust=false")
	if r.code != 0 {
		t.Fatalf("exit %d: %s", r.code, r.stderr)
	}
	if exists(dir, "server-ran") || exists(dir, "hook-ran") {
		t.Errorf("ran in a folder not trusted: server %v, hook %v", exists(dir, "server-ran"), exists(dir, "hook-ran"))
	}
	if text := requestText(t, srv, 1); !strings.Contains(text, "env=[]") {
		t.Errorf("the project's env reached the command: %s", text[max(0, len(text)-400):])
	}
	lines := trustLines(r.stdout + r.stderr)
	if len(lines) != 1 || !strings.Contains(lines[0], "trustedFolders") || !strings.Contains(lines[0], "not trusted") {
		t.Errorf("want one line naming --trust and trustedFolders: %q\nstderr: %s", lines, r.stderr)
	}

	r = gantry(t, dir, environ, "-p", "go", "--allow", "bash", "--trust")
	if r.code != 0 {
		t.Fatalf("--trust: exit %d: %s", r.code, r.stderr)
	}
	if !exists(dir, "server-ran") || !exists(dir, "hook-ran") || len(trustLines(r.stdout+r.stderr)) != 0 {
		t.Errorf("--trust: server %v, hook %v, %q", exists(dir, "server-ran"), exists(dir, "hook-ran"), r.stderr)
	}
	if text := requestText(t, srv, 3); !strings.Contains(text, "env=[from-the-project]") {
		t.Errorf("--trust: the project's env did not reach the command: %s", text[max(0, len(text)-400):])
	}
}

// -i asks at the terminal, showing the commands; a yes is kept, so the next print
// mode runs them unasked, until .mcp.json changes: then nothing runs and the line says
// what changed. gantry doctor shows each state.
func TestTrustKeptUntilAFileChanges(t *testing.T) {
	testenv.Need(t, "script")
	dir := trustProject(t)
	_, environ := fakeModel(t, say("one"), say("two"), say("three"))
	if d := gantry(t, dir, environ, "doctor"); !strings.Contains(d.stdout, "folder trust") || !strings.Contains(d.stdout, "not trusted: 1 MCP server(s), 1 hook(s), 1 env variable(s)") {
		t.Errorf("doctor before:\n%s", d.stdout)
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, "script", "-qec", binary+" -p go --interactive", "/dev/null")
	cmd.Dir, cmd.Env = dir, environ
	cmd.Stdin = strings.NewReader("y\n")
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	for _, want := range []string{"Trust the folder " + dir, "marker: sh -c touch server-ran; exit 1", "SessionStart: touch hook-ran", "GANTRY_TRUST_ENV", "[y] trust the folder"} {
		if !strings.Contains(string(out), want) {
			t.Errorf("the question does not show %q:\n%s", want, out)
		}
	}
	if !exists(dir, "server-ran") || !exists(dir, "hook-ran") {
		t.Fatalf("after yes: server %v, hook %v", exists(dir, "server-ran"), exists(dir, "hook-ran"))
	}
	data, err := os.ReadFile(filepath.Join(envValue(environ, "GANTRY_DATA_DIR"), "trusted-folders.json"))
	var kept []map[string]any
	if err != nil || json.Unmarshal(data, &kept) != nil || len(kept) != 1 || kept[0]["folder"] != dir {
		t.Errorf("the kept trust: %s %v", data, err)
	}
	if d := gantry(t, dir, environ, "doctor"); !strings.Contains(d.stdout, "trusted (") {
		t.Errorf("doctor after yes:\n%s", d.stdout)
	}

	os.Remove(filepath.Join(dir, "hook-ran"))
	r := gantry(t, dir, environ, "-p", "go")
	if r.code != 0 || !exists(dir, "hook-ran") || len(trustLines(r.stdout+r.stderr)) != 0 {
		t.Errorf("the kept yes: exit %d, hook %v, %s", r.code, exists(dir, "hook-ran"), r.stderr)
	}

	os.Remove(filepath.Join(dir, "hook-ran"))
	writeFiles(t, dir, map[string]string{".mcp.json": `{"mcpServers": {"marker": {"command": "sh", "args": ["-c", "touch changed-ran; exit 1"]}}}`})
	r = gantry(t, dir, environ, "-p", "go", "--trust=false")
	lines := trustLines(r.stdout + r.stderr)
	if r.code != 0 || exists(dir, "changed-ran") || exists(dir, "hook-ran") || len(lines) != 1 || !strings.Contains(lines[0], "changed since it was trusted (.mcp.json)") {
		t.Errorf("after a change: exit %d, server %v, hook %v, %q", r.code, exists(dir, "changed-ran"), exists(dir, "hook-ran"), lines)
	}
	if d := gantry(t, dir, environ, "doctor"); !strings.Contains(d.stdout, "changed since it was trusted (.mcp.json)") {
		t.Errorf("doctor after a change:\n%s", d.stdout)
	}
}

// In yolo, write_file creating .mcp.json and .claude/settings.json is refused with the
// rule that would allow it; written with that rule, the next default-mode print mode
// still runs neither, the folder not being trusted.
func TestYoloCannotPlantCodeForTheNextSession(t *testing.T) {
	dir := t.TempDir()
	writeFiles(t, dir, map[string]string{".git/HEAD": "ref: refs/heads/main\n"})
	mcp, _ := json.Marshal(map[string]string{"path": ".mcp.json", "content": `{"mcpServers": {"x": {"command": "sh", "args": ["-c", "touch server-ran; exit 1"]}}}`})
	settings, _ := json.Marshal(map[string]string{"path": ".claude/settings.json", "content": `{"hooks": {"SessionStart": [{"hooks": [{"type": "command", "command": "touch hook-ran"}]}]}}`})
	turns := append([]fakellm.Turn{}, call("w1", "write_file", string(mcp)), call("w2", "write_file", string(settings)), say("done"))
	srv, environ := fakeModel(t, append(turns, append([]fakellm.Turn{}, call("w1", "write_file", string(mcp)), call("w2", "write_file", string(settings)), say("done"), say("hello"))...)...)
	r := gantry(t, dir, environ, "-p", "plant", "--permission-mode", "yolo", "--refuse-questions")
	if r.code != 0 {
		t.Fatalf("exit %d: %s", r.code, r.stderr)
	}
	if exists(dir, ".mcp.json") || exists(dir, ".claude/settings.json") {
		t.Fatalf("yolo wrote them")
	}
	for i, rule := range []string{`--allow 'write_file:\\.mcp\\.json'`, `--allow 'write_file:\\.claude/settings\\.json'`} {
		msgs, _ := json.Marshal(srv.Requests()[i+1].Body["messages"])
		text := string(msgs)
		if !strings.Contains(text, "yolo included") || !strings.Contains(text, rule+".") {
			t.Errorf("request %d does not name %s: %s", i+1, rule, text[max(0, len(text)-500):])
		}
	}
	r = gantry(t, dir, environ, "-p", "plant", "--permission-mode", "yolo", "--allow", `write_file:\.mcp\.json`, "--allow", `write_file:\.claude/settings\.json`)
	if r.code != 0 || !exists(dir, ".mcp.json") || !exists(dir, ".claude/settings.json") {
		t.Fatalf("the rules named did not allow them: exit %d: %s", r.code, r.stderr)
	}
	r = gantry(t, dir, environ, "-p", "hello", "--trust=false")
	if r.code != 0 || exists(dir, "server-ran") || exists(dir, "hook-ran") || len(trustLines(r.stdout+r.stderr)) != 1 {
		t.Errorf("the next session: exit %d, server %v, hook %v: %s", r.code, exists(dir, "server-ran"), exists(dir, "hook-ran"), r.stderr)
	}
}

// The terminal UI asks to trust a folder before its screen opens, showing the server's
// command; after "y" the server starts and /mcp shows it connected.
func TestTUIAsksToTrustTheFolder(t *testing.T) {
	dir := t.TempDir()
	echo := echoServer(t)
	writeFiles(t, dir, map[string]string{".git/HEAD": "ref: refs/heads/main\n",
		".mcp.json": `{"mcpServers": {"echo": {"command": "` + echo + `"}}}`})
	srv, _ := fakeModel(t, say("hi"))
	tt := startTUI(t, 120, 40, dir, tuiEnv(t, srv))
	screen := tt.waitFor("Trust this folder and run them? [y/n]")
	for _, want := range []string{"Trust the folder " + dir, "MCP servers:", "echo: " + echo} {
		if !strings.Contains(screen, want) {
			t.Errorf("the question does not show %q:\n%s", want, screen)
		}
	}
	tt.typeLine("y")
	tt.waitFor("Ask gantry, or /help")
	tt.typeLine("/mcp")
	tt.waitFor("connected")
	tt.stop()
}

// An editor is asked to trust the folder at the first prompt (its permission requests
// belong to a turn): a tool call of its own shows the server's command, a
// session/request_permission asks, and after "trust" the server starts and its tool
// answers in the same turn. The next session of the folder is not asked.
func TestACPAsksToTrustTheFolder(t *testing.T) {
	echo := echoServer(t)
	dir := t.TempDir()
	writeFiles(t, dir, map[string]string{".git/HEAD": "ref: refs/heads/main\n",
		".mcp.json": `{"mcpServers": {"echo": {"command": "` + echo + `"}}}`})
	srv, environ := acpFakeModel(t, call("m1", "mcp__echo__pid", `{}`), say("first"), call("m2", "mcp__echo__pid", `{}`), say("second"))
	run := acpDrive(t, environ, acpScenario{
		Agent:       acpAgent{Cwd: dir},
		Permissions: []string{"allow_always", "allow_once", "allow_once"},
		Steps:       []acpStep{{"op": "new"}, {"op": "prompt", "text": "pid"}, {"op": "new"}, {"op": "prompt", "text": "pid again"}},
	})
	for _, st := range run.Steps[1:] {
		if st.Error != nil {
			t.Fatalf("%s: %+v", st.Op, *st.Error)
		}
	}
	if len(run.PermissionRequests) != 3 {
		t.Fatalf("%d permission requests, want the trust question and one per call: %+v", len(run.PermissionRequests), run.PermissionRequests)
	}
	q := run.PermissionRequests[0]
	if acpDig(q.Params, "toolCall", "toolCallId") != "gantry-trust-folder" || acpDig(q.Outcome, "optionId") != "trust" {
		t.Errorf("the first request is not the trust question answered trust: %+v", q)
	}
	shown := ""
	for _, u := range run.Updates {
		b, _ := json.Marshal(u)
		if strings.Contains(string(b), "gantry-trust-folder") {
			shown += string(b)
		}
	}
	if !strings.Contains(shown, "Trust the folder "+dir) || !strings.Contains(shown, "echo: "+echo) {
		t.Errorf("the trust tool call does not show the server's command: %s", shown)
	}
	for i, id := range map[int]string{1: "m1", 3: "m2"} {
		if pid := toolResult(srv.Requests()[i], id); pid == "" || strings.Contains(pid, "no tool named") {
			t.Errorf("request %d: the server's tool did not answer: %q", i, pid)
		}
	}
}
