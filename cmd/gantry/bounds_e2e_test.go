package main

// End-to-end tests of the bounds a fleet's job puts on a headless run (bounds.go,
// outputschema.go): --output-schema, --max-cost, --max-duration and --session-dir,
// through the built binary against the fake model.

import (
	"bufio"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/gantry-dev/gantry/internal/llm"
	"github.com/gantry-dev/gantry/internal/llm/fakellm"
	"github.com/gantry-dev/gantry/internal/testenv"
)

// testSchema asks for an object with a string name and an integer count, and nothing else.
const testSchema = `{
  "$schema": "https://json-schema.org/draft/2020-12/schema",
  "type": "object",
  "properties": {"name": {"type": "string"}, "count": {"type": "integer"}},
  "required": ["name", "count"],
  "additionalProperties": false
}`

// schemaFile writes testSchema to a file of its own and returns its path.
func schemaFile(t *testing.T) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), "answer.schema.json")
	if err := os.WriteFile(p, []byte(testSchema), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

// runResult is the json result object of a run.
func runResult(t *testing.T, stdout string) map[string]any {
	t.Helper()
	lines := strings.Split(strings.TrimSpace(stdout), "\n")
	var r map[string]any
	if err := json.Unmarshal([]byte(lines[len(lines)-1]), &r); err != nil || r["type"] != "result" {
		t.Fatalf("the last line of stdout is not the result (%v):\n%s", err, stdout)
	}
	return r
}

// lastUserText is the text of the last message of a recorded Anthropic request.
func lastUserText(t *testing.T, req fakellm.Recorded) string {
	t.Helper()
	msgs, _ := req.Body["messages"].([]any)
	if len(msgs) == 0 {
		t.Fatalf("the request has no messages: %s", req.Raw)
	}
	return texts(msgs[len(msgs)-1])
}

// texts joins the "text" fields found anywhere in a decoded JSON value.
func texts(v any) string {
	var b strings.Builder
	switch v := v.(type) {
	case map[string]any:
		if s, ok := v["text"].(string); ok {
			b.WriteString(s + "\n")
		}
		for k, sub := range v {
			if k != "text" {
				b.WriteString(texts(sub))
			}
		}
	case []any:
		for _, sub := range v {
			b.WriteString(texts(sub))
		}
	}
	return b.String()
}

func TestOutputSchemaConformingFirstTime(t *testing.T) {
	// A single ```json fenced block is taken; text format prints the JSON alone.
	srv, environ := fakeModel(t, say("```json\n{\"name\": \"gantry\", \"count\": 3}\n```"))
	r := gantry(t, t.TempDir(), environ, "-p", "describe it", "--output-schema", schemaFile(t))
	if r.code != 0 {
		t.Fatalf("exit %d\nstdout:\n%s\nstderr:\n%s", r.code, r.stdout, r.stderr)
	}
	if r.stdout != `{"name":"gantry","count":3}`+"\n" {
		t.Errorf("stdout is not the JSON answer alone:\n%q", r.stdout)
	}
	reqs := srv.Requests()
	if len(reqs) != 1 {
		t.Fatalf("%d model requests, want 1 (no retry)", len(reqs))
	}
	system := texts(reqs[0].Body["system"])
	for _, want := range []string{"<output-schema>", `"required":["name","count"]`, "only a JSON value"} {
		if !strings.Contains(system, want) {
			t.Errorf("the system prompt lacks %q: %s", want, system)
		}
	}

	// json: result is the text, structured_output the value.
	_, environ = fakeModel(t, say(`{"name":"g","count":1}`))
	r = gantry(t, t.TempDir(), environ, "-p", "describe it", "--output-schema", schemaFile(t), "--output-format", "json")
	res := runResult(t, r.stdout)
	if r.code != 0 || res["result"] != `{"name":"g","count":1}` {
		t.Fatalf("exit %d, result %v\n%s", r.code, res, r.stderr)
	}
	if so, _ := res["structured_output"].(map[string]any); so["name"] != "g" || so["count"] != 1.0 {
		t.Errorf("structured_output = %v", res["structured_output"])
	}
}

func TestOutputSchemaFixedOnRetry(t *testing.T) {
	srv, environ := fakeModel(t, say(`Here it is: {"name": "gantry"}`), say(`{"name": "gantry", "count": 2}`))
	r := gantry(t, t.TempDir(), environ, "-p", "describe it", "--output-schema", schemaFile(t), "--output-format", "stream-json")
	if r.code != 0 {
		t.Fatalf("exit %d\nstdout:\n%s\nstderr:\n%s", r.code, r.stdout, r.stderr)
	}
	res := runResult(t, r.stdout)
	if so, _ := res["structured_output"].(map[string]any); so["count"] != 2.0 || res["num_turns"] != 2.0 {
		t.Errorf("result = %v", res)
	}
	reqs := srv.Requests()
	if len(reqs) != 2 {
		t.Fatalf("%d model requests, want 2", len(reqs))
	}
	retry := lastUserText(t, reqs[1])
	for _, want := range []string{"does not conform to the output schema", "not JSON"} {
		if !strings.Contains(retry, want) {
			t.Errorf("the retry message lacks %q: %s", want, retry)
		}
	}

	// A JSON answer that breaks the schema: the retry names the missing property.
	srv, environ = fakeModel(t, say(`{"name": "gantry"}`), say(`{"name": "gantry", "count": 2}`))
	if r := gantry(t, t.TempDir(), environ, "-p", "describe it", "--output-schema", schemaFile(t)); r.code != 0 || r.stdout != `{"name":"gantry","count":2}`+"\n" {
		t.Fatalf("exit %d, stdout %q\n%s", r.code, r.stdout, r.stderr)
	}
	if retry := lastUserText(t, srv.Requests()[1]); !strings.Contains(retry, `missing properties: ["count"]`) {
		t.Errorf("the retry message does not name the missing property: %s", retry)
	}
}

func TestOutputSchemaFailingTwiceExits8(t *testing.T) {
	srv, environ := fakeModel(t, say(`{"name": 1, "count": 2}`), say(`{"name": "x", "count": 2.5}`), say("never asked"))
	r := gantry(t, t.TempDir(), environ, "-p", "describe it", "--output-schema", schemaFile(t), "--output-format", "json")
	if r.code != exitBadOutput {
		t.Fatalf("exit %d, want %d\nstdout:\n%s\nstderr:\n%s", r.code, exitBadOutput, r.stdout, r.stderr)
	}
	if !strings.Contains(r.stderr, "does not conform to --output-schema after one retry") || !strings.Contains(r.stderr, `want "integer"`) {
		t.Errorf("stderr does not say why: %s", r.stderr)
	}
	res := runResult(t, r.stdout)
	if res["subtype"] != "error_bad_output" || res["is_error"] != true || res["structured_output"] != nil {
		t.Errorf("result = %v", res)
	}
	if n := len(srv.Requests()); n != 2 {
		t.Errorf("%d model requests, want 2: one retry only", n)
	}
}

func TestOutputSchemaBadFileIsUsageError(t *testing.T) {
	srv, environ := fakeModel(t, say("never asked"))
	dir := t.TempDir()
	for name, body := range map[string]string{
		"notjson.json":  `{"type": "object",`,
		"badtype.json":  `{"type": "object", "properties": {"n": {"type": "integr"}}}`,
		"required.json": `{"type": "object", "required": "name"}`,
		"draft4.json":   `{"$schema": "http://json-schema.org/draft-04/schema#"}`,
	} {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
		r := gantry(t, dir, environ, "-p", "x", "--output-schema", p)
		if r.code != exitUsage || !strings.HasPrefix(r.stderr, "gantry: --output-schema "+p+": ") || strings.Count(strings.TrimSpace(r.stderr), "\n") != 0 {
			t.Errorf("%s: exit %d, want %d with one line naming the flag:\n%s", name, r.code, exitUsage, r.stderr)
		}
	}
	r := gantry(t, dir, environ, "-p", "x", "--output-schema", filepath.Join(dir, "missing.json"))
	if r.code != exitUsage || !strings.Contains(r.stderr, "missing.json: cannot be read") {
		t.Errorf("missing file: exit %d: %s", r.code, r.stderr)
	}
	if n := len(srv.Requests()); n != 0 {
		t.Errorf("%d model requests for bad schemas, want none", n)
	}
}

// pricey is a response of the default model (claude-sonnet-4-5, $3 per million input
// tokens) that costs $0.30.
func pricey(turn fakellm.Turn) fakellm.Turn {
	turn.Usage = llm.Usage{InputTokens: 100_000}
	return turn
}

func TestMaxCostStopsAfterTheResponseThatPassesIt(t *testing.T) {
	dir := t.TempDir()
	srv, environ := fakeModel(t,
		pricey(call("b1", "bash", `{"command":"touch first"}`)),
		pricey(call("b2", "bash", `{"command":"touch second"}`)),
		pricey(say("never asked")))
	r := gantry(t, dir, environ, "-p", "work", "--permission-mode", "yolo", "--max-cost", "0.5", "--output-format", "json")
	if r.code != exitMaxCost {
		t.Fatalf("exit %d, want %d\nstdout:\n%s\nstderr:\n%s", r.code, exitMaxCost, r.stdout, r.stderr)
	}
	if !strings.Contains(r.stderr, "spent $0.6000") || !strings.Contains(r.stderr, "--max-cost $0.5") {
		t.Errorf("stderr does not give the spent and the bound: %s", r.stderr)
	}
	if n := len(srv.Requests()); n != 2 {
		t.Errorf("%d model requests, want 2", n)
	}
	if _, err := os.Stat(filepath.Join(dir, "first")); err != nil {
		t.Error("the first response's call, under the bound, did not run")
	}
	if _, err := os.Stat(filepath.Join(dir, "second")); err == nil {
		t.Error("the call of the response that passed the bound ran")
	}
	res := runResult(t, r.stdout)
	if res["subtype"] != "error_max_cost" || res["total_cost_usd"].(float64) < 0.59 {
		t.Errorf("result = %v", res)
	}

	// An answer that ends the run is a success, under the bound or past it: there
	// is nothing left to stop.
	for _, bound := range []string{"$1", "0.1"} {
		_, environ = fakeModel(t, pricey(say("done")))
		if r := gantry(t, dir, environ, "-p", "work", "--max-cost", bound); r.code != 0 || r.stdout != "done\n" {
			t.Errorf("--max-cost %s, a final answer of $0.30: exit %d: %q %s", bound, r.code, r.stdout, r.stderr)
		}
	}
	// But an answer --output-schema must ask again is not asked again past the bound.
	srv, environ = fakeModel(t, pricey(say("not json")), say(`{"name":"a","count":1}`))
	r = gantry(t, dir, environ, "-p", "work", "--max-cost", "0.1", "--output-schema", schemaFile(t))
	if r.code != exitMaxCost || len(srv.Requests()) != 1 || r.stdout != "" {
		t.Errorf("a retry past the bound: exit %d, %d requests, stdout %q: %s", r.code, len(srv.Requests()), r.stdout, r.stderr)
	}
}

func TestMaxCostRefusesAModelWithoutPrice(t *testing.T) {
	srv, environ := fakeModel(t, say("never asked"))
	work := t.TempDir()
	r := gantry(t, work, environ, "-p", "work", "--model", "my-local-model", "--max-cost", "1")
	if r.code != exitUsage || !strings.Contains(r.stderr, "--max-cost cannot bound the model my-local-model") {
		t.Errorf("exit %d: %s", r.code, r.stderr)
	}
	if n := len(srv.Requests()); n != 0 {
		t.Errorf("%d model requests, want none", n)
	}
	// Refused before a session is made: none is left for --continue to find.
	if r := gantry(t, work, environ, "sessions"); !strings.Contains(r.stdout, "No sessions yet.") {
		t.Errorf("the refused run left a session: %s %s", r.stdout, r.stderr)
	}
	for _, bad := range [][]string{{"--max-cost", "lots"}, {"--max-cost", "-1"}, {"--max-duration", "10"}, {"--max-duration", "-5m"}} {
		r := gantry(t, t.TempDir(), environ, append([]string{"-p", "work"}, bad...)...)
		if r.code != exitUsage || !strings.Contains(r.stderr, bad[0]+": want ") {
			t.Errorf("%v: exit %d: %s", bad, r.code, r.stderr)
		}
	}
}

func TestMaxDurationCancelsARunningCommand(t *testing.T) {
	marker := "30.0417"
	srv, environ := fakeModel(t, call("s1", "bash", `{"command":"sleep `+marker+`"}`), say("never asked"))
	cmd := exec.Command(binary, "-p", "wait", "--permission-mode", "yolo", "--max-duration", "4s", "--output-format", "stream-json")
	cmd.Dir, cmd.Env = t.TempDir(), environ
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	var stderr strings.Builder
	cmd.Stderr = &stderr
	start := time.Now()
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	killed := false
	defer func() {
		if !killed {
			_ = cmd.Process.Kill()
			_ = cmd.Wait()
		}
		for _, p := range processesWith("sleep " + marker) {
			_ = syscall.Kill(p, syscall.SIGKILL)
		}
	}()
	// The command is running (its tool_running event is out, its sleep is seen in
	// /proc) before the bound ends it.
	lines, done := make(chan string), make(chan struct{})
	defer close(done) // the reader stops even when the test ends early
	go func() {
		defer close(lines)
		sc := bufio.NewScanner(stdout)
		sc.Buffer(nil, 1<<20)
		for sc.Scan() {
			select {
			case lines <- sc.Text():
			case <-done:
				return
			}
		}
	}()
	var last string
	timeout := time.After(25 * time.Second)
	running := false
read:
	for {
		select {
		case line, ok := <-lines:
			if !ok {
				break read
			}
			last = line
			if !running && strings.Contains(line, `"type":"tool_running"`) {
				running = true
				for len(processesWith("sleep "+marker)) == 0 {
					select {
					case <-timeout:
						t.Fatal("the sleep never showed in /proc")
					case <-time.After(10 * time.Millisecond):
					}
				}
			}
		case <-timeout:
			t.Fatal("gantry did not end within 25 s") // stderr is still being written
		}
	}
	err = cmd.Wait()
	killed = true
	if !running {
		t.Fatalf("the command never ran (%d requests); stderr:\n%s", len(srv.Requests()), stderr.String())
	}
	if code := cmd.ProcessState.ExitCode(); code != exitMaxDuration {
		t.Fatalf("exit %d (%v), want %d; stderr:\n%s", code, err, exitMaxDuration, stderr.String())
	}
	if took := time.Since(start); took > 20*time.Second {
		t.Errorf("gantry took %v, not well before the sleep's 30 s", took)
	}
	if !strings.Contains(stderr.String(), "--max-duration 4s") {
		t.Errorf("stderr does not name the bound: %s", stderr.String())
	}
	var res map[string]any
	if json.Unmarshal([]byte(last), &res); res["subtype"] != "error_max_duration" {
		t.Errorf("the last line is not the max_duration result: %s", last)
	}
	if left := processesWith("sleep " + marker); len(left) > 0 {
		t.Errorf("the command's processes %v outlived gantry", left)
	}
}

func TestSessionDirKeepsRunsApart(t *testing.T) {
	srv, environ := fakeModel(t, say("first answer"), say("second answer"), say("again"))
	work, stores := t.TempDir(), t.TempDir()
	a, b := filepath.Join(stores, "a"), filepath.Join(stores, "b", "nested")
	if r := gantry(t, work, environ, "-p", "alpha task", "--session-dir", a); r.code != 0 {
		t.Fatalf("run in a: exit %d: %s", r.code, r.stderr)
	}
	if r := gantry(t, work, environ, "-p", "beta task", "--session-dir", b); r.code != 0 {
		t.Fatalf("run in b: exit %d: %s", r.code, r.stderr)
	}
	for _, dir := range []string{a, b} {
		if _, err := os.Stat(filepath.Join(dir, "sessions.db")); err != nil {
			t.Errorf("no store in %s: %v", dir, err)
		}
	}
	titles := func(args ...string) []string {
		r := gantry(t, work, environ, append([]string{"sessions", "--json"}, args...)...)
		var list []sessionJSON
		if err := json.Unmarshal([]byte(r.stdout), &list); r.code != 0 || err != nil {
			t.Fatalf("gantry sessions %v: exit %d (%v): %s", args, r.code, err, r.stderr)
		}
		var out []string
		for _, s := range list {
			out = append(out, s.Title)
		}
		return out
	}
	if got := titles("--session-dir", a); len(got) != 1 || got[0] != "alpha task" {
		t.Errorf("sessions of a = %q", got)
	}
	if got := titles("--session-dir", b); len(got) != 1 || got[0] != "beta task" {
		t.Errorf("sessions of b = %q", got)
	}
	if got := titles(); len(got) != 0 {
		t.Errorf("the default store has %q, want none", got)
	}
	// --continue finds the folder's last session in a, not b's.
	if r := gantry(t, work, environ, "-p", "--continue", "go on", "--session-dir", a); r.code != 0 {
		t.Fatalf("continue in a: exit %d: %s", r.code, r.stderr)
	}
	body := string(srv.Requests()[2].Raw)
	if !strings.Contains(body, "alpha task") || strings.Contains(body, "beta task") {
		t.Errorf("the continued request is not a's session: %s", body)
	}
	empty := filepath.Join(stores, "empty")
	if r := gantry(t, work, environ, "-p", "--continue", "go on", "--session-dir", empty); r.code == 0 || !strings.Contains(r.stderr, "no session in") {
		t.Errorf("continue in an empty folder: exit %d: %s", r.code, r.stderr)
	}
}

// A session folder inside the project stays out of the sandboxed commands' reach, as
// the data folder does: the store cannot be written by a command.
func TestSessionDirIsReadOnlyInTheSandbox(t *testing.T) {
	testenv.Need(t, "bwrap")
	work := t.TempDir()
	srv, environ := fakeModel(t, call("w1", "bash", `{"command":"echo junk >> .fleet/sessions.db; echo rc=$?"}`), say("done"))
	r := gantry(t, work, environ, "-p", "scribble", "--permission-mode", "yolo", "--sandbox", "--session-dir", filepath.Join(work, ".fleet"), "--output-format", "stream-json")
	if r.code != 0 {
		t.Fatalf("exit %d\n%s\n%s", r.code, r.stdout, r.stderr)
	}
	if !strings.Contains(r.stdout, "rc=1") {
		t.Fatalf("the command wrote to the session store (%d requests):\n%s", len(srv.Requests()), r.stdout)
	}
	if r := gantry(t, work, environ, "sessions", "--session-dir", filepath.Join(work, ".fleet")); r.code != 0 || !strings.Contains(r.stdout, "scribble") {
		t.Errorf("the store is not whole: exit %d %s %s", r.code, r.stdout, r.stderr)
	}
}
