package main

// End-to-end tests of print mode through the built binary, where a user sees it: the
// lifecycle, tools that describe themselves, store errors, counters per turn, "always"
// grants, usage errors, help and the outputs.

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/gantry-dev/gantry/internal/llm/fakellm"
	"github.com/gantry-dev/gantry/internal/testenv"
)

// fakeModel is a fake model server for the test's whole run and the environment
// that points gantry at it.
func fakeModel(t *testing.T, turns ...fakellm.Turn) (*fakellm.Server, []string) {
	t.Helper()
	srv := fakellm.New(turns...)
	t.Cleanup(srv.Close)
	return srv, env(t, "ANTHROPIC_BASE_URL="+srv.URL(), "ANTHROPIC_API_KEY=k")
}

// call is a model response that calls one tool.
func call(id, name, input string) fakellm.Turn {
	return fakellm.Turn{Parts: []fakellm.Part{fakellm.ToolCall(id, name, input)}}
}

// say is a model response of text.
func say(text string) fakellm.Turn { return fakellm.Turn{Parts: []fakellm.Part{fakellm.Text(text)}} }

// writeFiles writes name → content under dir.
func writeFiles(t *testing.T, dir string, files map[string]string) {
	t.Helper()
	for name, body := range files {
		p := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(body), 0o755); err != nil {
			t.Fatal(err)
		}
	}
}

// requestText is what the model was sent in request i, as JSON text.
func requestText(t *testing.T, srv *fakellm.Server, i int) string {
	t.Helper()
	reqs := srv.Requests()
	if len(reqs) <= i {
		t.Fatalf("%d requests, wanted request %d", len(reqs), i)
	}
	b, _ := json.Marshal(reqs[i].Body)
	return string(b)
}

// streamEvents splits stream-json output into its objects.
func streamEvents(t *testing.T, out string) []map[string]any {
	t.Helper()
	var evs []map[string]any
	for _, line := range strings.Split(strings.TrimSpace(out), "\n") {
		var m map[string]any
		if err := json.Unmarshal([]byte(line), &m); err != nil {
			t.Fatalf("not one JSON object per line: %q", line)
		}
		evs = append(evs, m)
	}
	return evs
}

var (
	echoOnce  sync.Once
	echoBin   string
	echoBuild error
)

// echoServer builds the MCP test server of internal/mcpclient once.
func echoServer(t *testing.T) string {
	t.Helper()
	echoOnce.Do(func() {
		echoBin = filepath.Join(filepath.Dir(binary), "echoserver")
		out, err := exec.Command("go", "build", "-o", echoBin, "../../internal/mcpclient/testdata/echoserver").CombinedOutput()
		if err != nil {
			echoBuild = err
			echoBin = string(out)
		}
	})
	if echoBuild != nil {
		t.Fatalf("building the MCP echo server: %v\n%s", echoBuild, echoBin)
	}
	return echoBin
}

// A server that fails to start and a SessionStart hook that fails are each one
// notice; the run goes on and exits 0 — in text and in stream-json, where the
// notices follow the init line.
func TestStartFailuresAreNotices(t *testing.T) {
	echo := echoServer(t)
	dir := t.TempDir()
	writeFiles(t, dir, map[string]string{".gantry/config.yaml": "mcpServers:\n  broken:\n    command: " + echo + "\n    args: [-exit]\n  echo:\n    command: " + echo + "\n" +
		"hooks:\n  SessionStart:\n    - hooks:\n        - type: command\n          command: \"echo starting; exit 1\"\n"})
	for _, format := range []string{"text", "stream-json"} {
		t.Run(format, func(t *testing.T) {
			srv, e := fakeModel(t, call("m1", "mcp__echo__echo", `{"text":"through MCP"}`), say("The echo worked."))
			r := gantry(t, dir, e, "-p", "use the echo tool", "--permission-mode", "yolo", "--output-format", format, "--trust")
			if r.code != 0 {
				t.Fatalf("exit %d\nstdout:\n%s\nstderr:\n%s", r.code, r.stdout, r.stderr)
			}
			if !strings.Contains(requestText(t, srv, 1), "through MCP") {
				t.Errorf("the working server's tool did not run: %s", requestText(t, srv, 1))
			}
			if format == "text" {
				if strings.Count(r.stdout, `: MCP server "broken"`) != 1 || strings.Count(r.stdout, "⚠ SessionStart hook") != 1 {
					t.Errorf("want one notice each:\n%s", r.stdout)
				}
				if !strings.Contains(r.stdout, "The echo worked.") {
					t.Errorf("the run did not go on:\n%s", r.stdout)
				}
				return
			}
			evs := streamEvents(t, r.stdout)
			if evs[0]["type"] != "system" || evs[0]["subtype"] != "init" {
				t.Fatalf("the first line is not the init line: %v", evs[0])
			}
			tools, _ := evs[0]["tools"].([]any)
			hasMCP := false
			for _, n := range tools {
				hasMCP = hasMCP || n == "mcp__echo__echo"
			}
			if !hasMCP {
				t.Errorf("init does not list the MCP server's tools: %v", tools)
			}
			var notices []string
			for _, ev := range evs {
				if ev["type"] == "notice" {
					notices = append(notices, ev["text"].(string))
				}
			}
			if len(notices) != 2 {
				t.Errorf("notices %q, want the server's and the hook's", notices)
			}
		})
	}
}

// Seed 000: the counters once after a turn of three responses, summed over all of
// them; stream-json's step_ended carries the turn's counters so far.
func TestCountersOfAThreeResponseTurn(t *testing.T) {
	dir := t.TempDir()
	writeFiles(t, dir, map[string]string{"a.txt": "alpha\n"})
	turns := []fakellm.Turn{
		{Parts: []fakellm.Part{fakellm.ToolCall("r1", "read_file", `{"path":"a.txt"}`), fakellm.ToolCall("b1", "bash", `{"command":"echo one"}`)}},
		call("b2", "bash", `{"command":"echo two"}`),
		call("w1", "write_file", `{"path":"b.txt","content":"beta\n"}`),
		say("Three steps done."),
	}
	_, e := fakeModel(t, turns...)
	r := gantry(t, dir, e, "-p", "do three things", "--permission-mode", "yolo")
	if r.code != 0 {
		t.Fatalf("exit %d: %s", r.code, r.stderr)
	}
	if !strings.HasSuffix(r.stdout, "Three steps done.\n⚙ 2 command(s)  📝 2 file op(s)\n") {
		t.Errorf("want one counter line after the answer:\n%s", r.stdout)
	}
	if n := strings.Count(r.stdout, "command(s)"); n != 1 {
		t.Errorf("%d counter lines:\n%s", n, r.stdout)
	}

	_, e = fakeModel(t, turns...)
	r = gantry(t, t.TempDir(), e, "-p", "do three things", "--permission-mode", "yolo", "--output-format", "stream-json")
	var steps []string
	var total any
	for _, ev := range streamEvents(t, r.stdout) {
		switch ev["type"] {
		case "step_ended":
			c := ev["counters"].(map[string]any)
			steps = append(steps, strings.TrimSpace(strings.Repeat("c", int(c["commands"].(float64)))+" "+strings.Repeat("f", int(c["file_ops"].(float64)))))
		case "result":
			total = ev["counters"]
		}
	}
	if strings.Join(steps, "|") != "c f|cc f|cc ff" {
		t.Errorf("step counters %q, want the turn's so far", steps)
	}
	if c, _ := total.(map[string]any); c["commands"] != 2.0 || c["file_ops"] != 2.0 {
		t.Errorf("result counters %v", total)
	}
}

// "Always" on `go test ./...` allows `go test ./x` without asking, and `go vet` is
// still asked; the question says what "always" keeps.
func TestAlwaysRemembersTheCommandsSubcommand(t *testing.T) {
	testenv.Need(t, "script")
	srv2, e2 := fakeModel(t,
		call("t1", "bash", `{"command":"go test ./..."}`),
		call("t2", "bash", `{"command":"go test ./x"}`),
		call("t3", "bash", `{"command":"go vet ./..."}`),
		say("done"),
	)
	dir := goModule(t)
	os.MkdirAll(filepath.Join(dir, "x"), 0o755)
	os.WriteFile(filepath.Join(dir, "x", "x.go"), []byte("package x\n"), 0o644)
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	// a: always (the grant), then n for go vet.
	cmd := exec.CommandContext(ctx, "script", "-qec", binary+" -p 'test it' --interactive", "/dev/null")
	cmd.Dir, cmd.Env = dir, e2
	cmd.Stdin = strings.NewReader("a\nn\n")
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	if n := strings.Count(string(out), "y/a/s/n/d >"); n != 2 {
		t.Errorf("%d questions, want 2 (go test ./..., then go vet):\n%s", n, out)
	}
	if !strings.Contains(string(out), "always allow `go test` commands (bash:go test( .*)?), this session") {
		t.Errorf("the question does not say what always keeps:\n%s", out)
	}
	reqs := srv2.Requests()
	if len(reqs) != 4 {
		t.Fatalf("%d requests", len(reqs))
	}
	if r := requestText(t, srv2, 2); strings.Contains(r, "rejected") || strings.Contains(r, "needs permission") {
		t.Errorf("go test ./x was not allowed by the grant: %s", r)
	}
	if r := requestText(t, srv2, 3); !strings.Contains(r, "[command rejected by the user]") {
		t.Errorf("go vet was not asked and refused: %s", r)
	}
}

// A full disk for the store, filled by the model's own command: the turn stops at
// the record that cannot be written (the command's result), before the next model
// request, and print mode exits 9 (exitStore) with one sentence naming the store and the cause.
// The data folder is a tiny tmpfs of a mount namespace of the test's own (so it
// runs without root; TestFullDiskStopsTheTurnAndContinueFinishes, as root, goes on
// after the disk is freed).
func TestFullDiskForTheStore(t *testing.T) {
	if err := exec.Command("unshare", "-rm", "true").Run(); err != nil {
		t.Skipf("no user and mount namespaces here (unshare -rm: %v): a full disk cannot be made", err)
	}
	data := t.TempDir()
	srv, e := fakeModel(t,
		call("f1", "bash", `{"command":"head -c 8000000 /dev/zero > \"$GANTRY_DATA_DIR/fill\"; echo filled"}`),
		say("The final answer."),
	)
	var clean []string
	for _, kv := range e {
		if !strings.HasPrefix(kv, "GANTRY_DATA_DIR=") {
			clean = append(clean, kv)
		}
	}
	clean = append(clean, "GANTRY_DATA_DIR="+data)
	// Without the sandbox: in it, gantry's data folder is read-only to commands.
	script := `mount -t tmpfs -o size=4m tmpfs "$GANTRY_DATA_DIR" && exec "$0" -p "fill the disk" --permission-mode yolo --sandbox=false`
	cmd := exec.Command("unshare", "-rm", "sh", "-c", script, binary)
	cmd.Dir, cmd.Env = t.TempDir(), clean
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	err := cmd.Run()
	code := 0
	if ee, ok := err.(*exec.ExitError); ok {
		code = ee.ExitCode()
	} else if err != nil {
		t.Fatal(err)
	}
	if len(srv.Requests()) != 1 || strings.Contains(out.String(), "The final answer.") {
		t.Fatalf("the turn went on after its results could not be stored:\n%s\n%s", out.String(), errb.String())
	}
	if code != exitStore {
		t.Errorf("exit %d, want %d", code, exitStore)
	}
	lines := strings.Split(strings.TrimSpace(errb.String()), "\n")
	if len(lines) != 1 || !strings.Contains(lines[0], "could not be written: the disk is full; the turn stopped there") {
		t.Errorf("stderr is not one sentence about the store:\n%s", errb.String())
	}
}

// Usage errors exit 2 and say what is wrong, in one line.
func TestUsageErrorsExit2(t *testing.T) {
	dir := t.TempDir()
	e := env(t, "ANTHROPIC_API_KEY=k")
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"-p", "x", "--permission-mode", "bogus"}, `unknown permission mode "bogus"`},
		{[]string{"-p", "x", "--allow", "bash:("}, `--allow: rule "bash:(" has a bad regular expression: missing closing ) in "("`},
		{[]string{"-p", "x", "--allow", ""}, "empty permission rule"},
		{[]string{"-p", "x", "--deny", ":rm"}, "names no tool"},
		{[]string{"-p", "x", "--allow", "bahs:ls"}, `--allow: rule "bahs:ls" names no tool gantry has (bahs); did you mean bash?`},
		{[]string{"-p", "x", "--max-turns", "abc"}, `--max-turns takes a whole number, not "abc"`},
		{[]string{"-p", "x", "-C", filepath.Join(dir, "missing")}, "not an existing folder"},
		{[]string{"-p", "x", "--no-such-flag"}, "unknown flag --no-such-flag"},
		{[]string{"-p", "x", "--output-format", "xml"}, `unknown output format "xml"`},
		{[]string{"sessions", "extra"}, `unexpected argument "extra"`},
		{[]string{"sessions", "--limit", "abc"}, `--limit takes a whole number, not "abc"`},
		{[]string{"acp", "-p", "x"}, "-p does not apply"},
		{[]string{"acp", "--permission-mode", "sometimes"}, "unknown permission mode"},
	} {
		r := gantry(t, dir, e, c.args...)
		if r.code != 2 || !strings.Contains(r.stderr, c.want) || strings.Count(strings.TrimSpace(r.stderr), "\n") > 1 {
			t.Errorf("gantry %s: exit %d, stderr %q; want exit 2 and %q", strings.Join(c.args, " "), r.code, r.stderr, c.want)
		}
	}
}

// A rule naming no tool is refused in config.yaml too, with its file and line; a bad
// regular expression is named as written.
func TestRulesInConfigNameTheirLine(t *testing.T) {
	dir := t.TempDir()
	cfg := filepath.Join(dir, ".gantry", "config.yaml")
	for _, c := range []struct{ body, want string }{
		{"model: m\npermissions:\n  allow:\n    - read_file\n    - raed_file\n", cfg + `:5: rule "raed_file" names no tool gantry has (raed_file); did you mean read_file?`},
		{"permissions:\n  deny:\n    - 'bash:rm ['\n", cfg + `:3: rule "bash:rm [" has a bad regular expression: missing closing ] in "["`},
	} {
		writeFiles(t, dir, map[string]string{".gantry/config.yaml": c.body})
		r := gantry(t, dir, env(t, "ANTHROPIC_API_KEY=k"), "-p", "hi", "--trust")
		if r.code != 1 || !strings.Contains(r.stderr, c.want) || strings.Contains(r.stderr, "(?:") {
			t.Errorf("exit %d, stderr %q; want %q", r.code, r.stderr, c.want)
		}
	}
}

// ~/ is the home folder for every file and search tool.
func TestHomeIsExpanded(t *testing.T) {
	home := t.TempDir()
	writeFiles(t, home, map[string]string{"notes/todo.txt": "buy milk\n"})
	e := append(env(t), "HOME="+home)
	for _, c := range []struct{ tool, args, want string }{
		{"read_file", `{"path":"~/notes/todo.txt"}`, "buy milk"},
		{"grep", `{"pattern":"milk","path":"~/notes","output_mode":"content"}`, "buy milk"},
		{"glob", `{"pattern":"*.txt","path":"~/notes"}`, "todo.txt"},
	} {
		r := gantry(t, t.TempDir(), e, "tool", c.tool, c.args)
		if r.code != 0 || !strings.Contains(r.stdout, c.want) {
			t.Errorf("%s %s: exit %d, %q %q", c.tool, c.args, r.code, r.stdout, r.stderr)
		}
	}
	r := gantry(t, t.TempDir(), e, "-p", "x", "-C", "~/notes")
	if strings.Contains(r.stderr, "not an existing folder") {
		t.Errorf("-C ~/notes was not expanded: %s", r.stderr)
	}
}

// A local server named by ANTHROPIC_BASE_URL works without a key; an answer that
// cannot succeed on retry (401) is not retried; a retry notice is one line.
func TestLocalServerAndRetries(t *testing.T) {
	srv := fakellm.New(say("no key needed"))
	defer srv.Close()
	r := gantry(t, t.TempDir(), env(t, "ANTHROPIC_BASE_URL="+srv.URL()), "-p", "hi")
	if r.code != 0 || !strings.Contains(r.stdout, "no key needed") {
		t.Fatalf("without a key: exit %d %q %q", r.code, r.stdout, r.stderr)
	}

	srv2, e := fakeModel(t, fakellm.Turn{Status: 401}, say("never"))
	start := time.Now()
	r = gantry(t, t.TempDir(), e, "-p", "hi")
	if r.code != 1 || len(srv2.Requests()) != 1 || time.Since(start) > 20*time.Second {
		t.Errorf("a 401 was retried: exit %d, %d requests", r.code, len(srv2.Requests()))
	}
	if strings.Contains(r.stdout, "retrying") {
		t.Errorf("a 401 is announced as a retry: %s", r.stdout)
	}

	_, e = fakeModel(t, fakellm.Turn{Status: 529}, say("after one retry"))
	r = gantry(t, t.TempDir(), e, "-p", "hi")
	if r.code != 0 || !strings.Contains(r.stdout, "after one retry") {
		t.Fatalf("exit %d %q %q", r.code, r.stdout, r.stderr)
	}
	// The retry line goes to stderr (an answer retried in the middle stays one
	// text on stdout); stdout is the answer.
	if n := strings.Count(r.stderr, "↻"); n != 1 || !strings.Contains(r.stderr, "attempt 2") {
		t.Errorf("want one retry line on stderr:\n%s", r.stderr)
	}
	if r.stdout != "after one retry\n" {
		t.Errorf("stdout %q, want the answer alone", r.stdout)
	}
}

// Piped data goes after the prompt, as Claude Code reads `echo DATA | claude -p …`;
// with no prompt, stdin is the prompt.
func TestPipedStdinFollowsThePrompt(t *testing.T) {
	srv, e := fakeModel(t, say("summary"), say("again"))
	for _, c := range []struct {
		args  []string
		stdin string
		want  []string
	}{
		{[]string{"-p", "summarize this"}, "line one of the data\nline two\n", []string{`summarize this\n\nline one of the data\nline two\n`}},
		{[]string{"-p"}, "the whole prompt from stdin\n", []string{"the whole prompt from stdin"}},
	} {
		cmd := exec.Command(binary, c.args...)
		cmd.Dir, cmd.Env = t.TempDir(), e
		cmd.Stdin = strings.NewReader(c.stdin)
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("%v: %v\n%s", c.args, err, out)
		}
	}
	for i, want := range []string{`summarize this\n\nline one of the data\nline two\n`, "the whole prompt from stdin"} {
		if !strings.Contains(requestText(t, srv, i), want) {
			t.Errorf("request %d lacks %q: %s", i, want, requestText(t, srv, i))
		}
	}
}

// A tool that bounds its own output is not cut again: a skill of 43,429 characters
// read with maxOutput 30000 loads whole (a skill's bound is 100,000 characters), and
// one of 125,034 characters without headings is cut once, at that bound, with the
// true count.
func TestBoundedOnce(t *testing.T) {
	dir := t.TempDir()
	body := "---\ndescription: A long skill.\n---\n" + strings.Repeat("word ", 8679)
	huge := "---\ndescription: A huge skill.\n---\n" + strings.Repeat("word ", 25000)
	writeFiles(t, dir, map[string]string{".gantry/skills/long.md": body, ".gantry/skills/huge.md": huge, ".gantry/config.yaml": "maxOutput: 30000\n"})
	srv, e := fakeModel(t, call("s1", "read_skill", `{"name":"long"}`), call("s2", "read_skill", `{"name":"huge"}`), say("read"))
	if r := gantry(t, dir, e, "-p", "read the long skill"); r.code != 0 {
		t.Fatalf("exit %d: %s", r.code, r.stderr)
	}
	results := map[string]string{}
	for _, m := range srv.Requests()[2].Body["messages"].([]any) {
		for _, b := range m.(map[string]any)["content"].([]any) {
			if blk := b.(map[string]any); blk["type"] == "tool_result" {
				results[fmt.Sprint(blk["tool_use_id"])] = fmt.Sprint(blk["content"])
			}
		}
	}
	if long := results["s1"]; !strings.Contains(long, strings.TrimSpace(body)) || strings.Contains(long, "characters cut") {
		t.Errorf("the skill of 43,429 characters is not whole: %d characters", utf8.RuneCountInString(long))
	}
	result := results["s2"]
	notes := regexp.MustCompile(`\[… (\d+) of (\d+) characters cut`).FindAllStringSubmatch(result, -1)
	if len(notes) != 1 {
		t.Fatalf("%d cut notes, want 1: %v", len(notes), notes)
	}
	cut, total := atoi(t, notes[0][1]), atoi(t, notes[0][2])
	if total != utf8.RuneCountInString(huge) || utf8.RuneCountInString(result) > 100100 { // the content block's brackets
		t.Errorf("the note says %d of %d characters; the result has %d", cut, total, utf8.RuneCountInString(result))
	}
	if kept := total - cut; kept < 99000 || kept > 100000 {
		t.Errorf("the note says %d characters were kept", kept)
	}
}

func atoi(t *testing.T, s string) int {
	t.Helper()
	n, err := strconv.Atoi(s)
	if err != nil {
		t.Fatal(err)
	}
	return n
}

// A PreToolUse hook's rewritten input is what the tool line and stream-json show,
// with a note that a hook changed it.
func TestHookRewriteIsShown(t *testing.T) {
	dir := t.TempDir()
	writeFiles(t, dir, map[string]string{
		"rewrite.sh":          "#!/bin/sh\necho '{\"hookSpecificOutput\":{\"hookEventName\":\"PreToolUse\",\"updatedInput\":{\"command\":\"echo rewritten\"}}}'\n",
		".gantry/config.yaml": "hooks:\n  PreToolUse:\n    - matcher: bash\n      hooks:\n        - type: command\n          command: sh rewrite.sh\n",
	})
	for _, format := range []string{"text", "stream-json"} {
		srv, e := fakeModel(t, call("b1", "bash", `{"command":"echo original"}`), say("ok"))
		r := gantry(t, dir, e, "-p", "echo", "--permission-mode", "yolo", "--output-format", format, "--trust")
		if r.code != 0 {
			t.Fatalf("exit %d: %s", r.code, r.stderr)
		}
		if !strings.Contains(requestText(t, srv, 1), "rewritten") {
			t.Fatalf("the rewrite did not run: %s", requestText(t, srv, 1))
		}
		if format == "text" {
			if !strings.Contains(r.stdout, "🛠️ bash: echo rewritten\n  (a PreToolUse hook rewrote the input)\n") || strings.Contains(r.stdout, "echo original") {
				t.Errorf("text shows:\n%s", r.stdout)
			}
			continue
		}
		for _, ev := range streamEvents(t, r.stdout) {
			if ev["type"] == "tool_started" {
				in, _ := json.Marshal(ev["input"])
				if ev["principal"] != "echo rewritten" || !strings.Contains(string(in), "echo rewritten") || !strings.Contains(ev["note"].(string), "hook") {
					t.Errorf("tool_started %v", ev)
				}
			}
		}
	}
}

// JSON outputs use snake_case; an error is error_during_execution, never
// error_error; version names the build; help names the faces.
func TestOutputsAndHelp(t *testing.T) {
	srv, e := fakeModel(t, say("hello"))
	dir := t.TempDir()
	if r := gantry(t, dir, e, "-p", "first"); r.code != 0 {
		t.Fatal(r.stderr)
	}
	r := gantry(t, dir, e, "sessions", "--json")
	var list []map[string]any
	if err := json.Unmarshal([]byte(r.stdout), &list); err != nil || len(list) != 1 {
		t.Fatalf("sessions --json: %v %s", err, r.stdout)
	}
	for k := range list[0] {
		if k != strings.ToLower(k) {
			t.Errorf("sessions --json key %q is not snake_case", k)
		}
	}
	for _, k := range []string{"id", "cwd", "title", "updated", "turns", "cost_usd"} {
		if _, ok := list[0][k]; !ok {
			t.Errorf("sessions --json lacks %q: %v", k, list[0])
		}
	}
	_ = srv

	_, e = fakeModel(t, fakellm.Turn{Status: 400})
	r = gantry(t, dir, e, "-p", "x", "--output-format", "json")
	var res map[string]any
	if err := json.Unmarshal([]byte(r.stdout), &res); err != nil {
		t.Fatalf("%v: %s", err, r.stdout)
	}
	if res["subtype"] != "error_during_execution" || res["is_error"] != true {
		t.Errorf("an error's result: %v", res)
	}

	r = gantry(t, dir, env(t), "version")
	if r.code != 0 || !regexp.MustCompile(`^gantry \S+ \(.*go1\.\d+`).MatchString(r.stdout) {
		t.Errorf("version: %q", r.stdout)
	}
	// The revision the build recorded, when it was built in a git work tree.
	if info, err := exec.Command("go", "version", "-m", binary).Output(); err == nil {
		if m := regexp.MustCompile(`vcs\.revision=([0-9a-f]{12})`).FindSubmatch(info); m != nil && !strings.Contains(r.stdout, "revision "+string(m[1])) {
			t.Errorf("version does not name the revision %s: %q", m[1], r.stdout)
		} else if m == nil && strings.Contains(r.stdout, "revision") {
			t.Errorf("version names a revision the build did not record: %q", r.stdout)
		}
	}
	r = gantry(t, dir, env(t), "-h")
	for _, want := range []string{"terminal UI", "sessions [--limit N] [--json]", "tool NAME --help"} {
		if !strings.Contains(r.stdout, want) {
			t.Errorf("-h lacks %q", want)
		}
	}
}

// gantry tool NAME --help shows the tool's description and schema; gantry tool list
// names the MCP servers without starting them, and --mcp starts them and lists their
// tools; grep on a binary file says so.
func TestToolCommandHelpListAndBinary(t *testing.T) {
	dir := t.TempDir()
	r := gantry(t, dir, env(t), "tool", "edit_file", "--help")
	if r.code != 0 || !strings.Contains(r.stdout, "edit_file — level write, kind edit") || !strings.Contains(r.stdout, `"required"`) || !strings.Contains(r.stdout, `"edits"`) {
		t.Errorf("tool --help: %d %q", r.code, r.stdout)
	}
	writeFiles(t, dir, map[string]string{".gantry/config.yaml": "mcpServers:\n  echo:\n    command: " + echoServer(t) + "\n"})
	// A folder not trusted starts none of its servers, and says so; --trust starts them.
	r = gantry(t, dir, env(t), "tool", "list", "--mcp")
	if r.code != 0 || strings.Contains(r.stdout, "mcp__echo__echo") || !strings.Contains(r.stdout, "not trusted: its 1 project MCP server(s) are not started (--trust starts them)") {
		t.Errorf("tool list in a folder not trusted: %d %q %q", r.code, r.stdout, r.stderr)
	}
	r = gantry(t, dir, env(t), "tool", "--trust", "list")
	if r.code != 0 || strings.Contains(r.stdout, "mcp__echo__echo") || !strings.Contains(r.stdout, "1 MCP server(s) configured (echo)") {
		t.Errorf("tool list without --mcp: %d %q %q", r.code, r.stdout, r.stderr)
	}
	r = gantry(t, dir, env(t), "tool", "--trust", "list", "--mcp")
	if r.code != 0 || !strings.Contains(r.stdout, "mcp__echo__echo") || !strings.Contains(r.stdout, "bash") || strings.Contains(r.stdout, "configured (echo)") {
		t.Errorf("tool list --mcp: %d %q %q", r.code, r.stdout, r.stderr)
	}
	if r = gantry(t, dir, env(t), "tool", "--trust", "mcp__echo__echo", `{"text":"hi there"}`); r.code != 0 || !strings.Contains(r.stdout, "hi there") {
		t.Errorf("an MCP tool by name: %d %q %q", r.code, r.stdout, r.stderr)
	}
	os.WriteFile(filepath.Join(dir, "blob.bin"), append([]byte("needle here\x00\x01\x02"), bytes.Repeat([]byte{7}, 100)...), 0o644)
	r = gantry(t, dir, env(t), "tool", "grep", `{"pattern":"needle","path":"blob.bin"}`)
	if !strings.Contains(r.stdout, "blob.bin is a binary file") || !strings.Contains(r.stdout, "matches") {
		t.Errorf("grep on a binary file: %d %q", r.code, r.stdout)
	}
}

// A rule naming a tool a connected MCP server does not have is said once the server is
// connected (a server not connected now is left alone).
func TestMCPRuleOfNoToolIsSaid(t *testing.T) {
	dir := t.TempDir()
	writeFiles(t, dir, map[string]string{".gantry/config.yaml": "mcpServers:\n  echo:\n    command: " + echoServer(t) + "\n" +
		"permissions:\n  allow:\n    - mcp__echo__ecko\n    - mcp__elsewhere__anything\n"})
	_, e := fakeModel(t, say("ok"))
	r := gantry(t, dir, e, "-p", "hi", "--trust")
	if r.code != 0 {
		t.Fatalf("exit %d: %s", r.code, r.stderr)
	}
	if !strings.Contains(r.stdout, `⚠ `+filepath.Join(dir, ".gantry", "config.yaml")+`:6: the rule "mcp__echo__ecko" names no tool of the MCP server echo (it has `) || !strings.Contains(r.stdout, "mcp__echo__echo") {
		t.Errorf("no notice of the rule:\n%s", r.stdout)
	}
	if strings.Contains(r.stdout, "elsewhere") {
		t.Errorf("a rule of a server not connected is said:\n%s", r.stdout)
	}
}
