package main

// End-to-end tests of `gantry acp`: the built binary (TestMain's binary) driven by a
// real Agent Client Protocol client, the TypeScript SDK's (testdata/acp-client/
// drive.mjs on @agentclientprotocol/sdk 2.4.0), against fakellm. The driver records
// every line on the wire; acpCheckProtocol holds every run to the protocol's
// ordering rules, and each test checks its own exchange.
//
// These tests need Node.js and the client's npm package (scripts/test.sh installs it
// with npm ci); without them they fail, never skip.

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/gantry-dev/gantry/internal/llm/fakellm"
)

// acpClientDir holds the test client: package.json, package-lock.json, drive.mjs.
const acpClientDir = "testdata/acp-client"

// acpSDKVersion is the version of @agentclientprotocol/sdk the client is pinned to.
const acpSDKVersion = "2.4.0"

// acpDriver returns node and the driver script, failing the test with what to do
// when either is missing.
func acpDriver(t *testing.T) (node, script string) {
	t.Helper()
	node, err := exec.LookPath("node")
	if err != nil {
		t.Fatalf("the ACP end-to-end tests need Node.js: node is not on PATH (%v). Install it (Debian: apt-get install nodejs npm), then run `npm ci --no-audit --no-fund --prefix cmd/gantry/testdata/acp-client` (scripts/test.sh runs it when needed)", err)
	}
	dir, err := filepath.Abs(acpClientDir)
	if err != nil {
		t.Fatal(err)
	}
	pkg, err := os.ReadFile(filepath.Join(dir, "node_modules", "@agentclientprotocol", "sdk", "package.json"))
	if err != nil {
		t.Fatalf("the ACP test client's npm package @agentclientprotocol/sdk is not installed (%v). Run `npm ci --no-audit --no-fund --prefix cmd/gantry/testdata/acp-client` (scripts/test.sh runs it when needed)", err)
	}
	var meta struct{ Version string }
	if json.Unmarshal(pkg, &meta) != nil || meta.Version != acpSDKVersion {
		t.Fatalf("@agentclientprotocol/sdk %q is installed in %s, the tests are written for %s: run `npm ci --no-audit --no-fund --prefix cmd/gantry/testdata/acp-client`", meta.Version, acpClientDir, acpSDKVersion)
	}
	return node, filepath.Join(dir, "drive.mjs")
}

// acpScenario is what drive.mjs plays (its header documents the fields).
type acpScenario struct {
	Agent        acpAgent          `json:"agent"`
	Capabilities map[string]any    `json:"clientCapabilities,omitempty"`
	Buffers      map[string]string `json:"buffers,omitempty"`
	Permissions  []string          `json:"permissions,omitempty"`
	Steps        []acpStep         `json:"steps"`
	TimeoutMs    int               `json:"timeoutMs,omitempty"`
}

type acpAgent struct {
	Command string   `json:"command"`
	Args    []string `json:"args"`
	Cwd     string   `json:"cwd"`
}

type acpStep map[string]any

// acpRun is what drive.mjs printed.
type acpRun struct {
	Steps              []acpStepResult   `json:"steps"`
	Updates            []json.RawMessage `json:"updates"`
	PermissionRequests []acpPermission   `json:"permissionRequests"`
	FsReads            []struct {
		Path   string `json:"path"`
		Served string `json:"served"`
	} `json:"fsReads"`
	FsWrites []struct {
		Path    string `json:"path"`
		Content string `json:"content"`
	} `json:"fsWrites"`
	Cancels []struct {
		SessionID string `json:"sessionId"`
		Reason    string `json:"reason"`
		At        int    `json:"at"`
	} `json:"cancels"`
	Wire        []acpWire `json:"wire"`
	SDKErrors   []string  `json:"sdkErrors"`
	DriverError *string   `json:"driverError"`
	AgentExit   *struct {
		Code   *int    `json:"code"`
		Signal *string `json:"signal"`
	} `json:"agentExit"`
}

type acpStepResult struct {
	Op      string         `json:"op"`
	Request map[string]any `json:"request"`
	Result  map[string]any `json:"result"`
	Error   *struct {
		Code    int    `json:"code"`
		Message string `json:"message"`
		Data    any    `json:"data"`
	} `json:"error"`
	Ms     int `json:"ms"`
	Cancel *struct {
		Fired       bool    `json:"fired"`
		ProcessSeen bool    `json:"processSeen"`
		Error       *string `json:"error"`
	} `json:"cancel"`
	CancelToResponseMs int  `json:"cancelToResponseMs"`
	ProcessAtResponse  bool `json:"processAtResponse"`
	ProcessGoneAfterMs *int `json:"processGoneAfterMs"`
}

type acpPermission struct {
	Params  map[string]any `json:"params"`
	Answer  string         `json:"answer"`
	Outcome map[string]any `json:"outcome"`
}

// acpWire is one line that crossed stdin (sent) or stdout (recv), in order.
type acpWire struct {
	Dir string         `json:"dir"`
	At  int            `json:"at"`
	Msg map[string]any `json:"msg"`
	Raw *string        `json:"raw"`
}

// acpDrive runs drive.mjs on sc with gantry started in environ, checks the protocol
// rules every exchange must keep, and returns the record.
func acpDrive(t *testing.T, environ []string, sc acpScenario) *acpRun {
	t.Helper()
	node, script := acpDriver(t)
	if sc.Agent.Command == "" {
		sc.Agent.Command = binary
	}
	if sc.Agent.Args == nil {
		sc.Agent.Args = []string{"acp"}
	}
	in, err := json.Marshal(sc)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, node, script)
	cmd.Dir, cmd.Env, cmd.Stdin = sc.Agent.Cwd, environ, bytes.NewReader(in)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr // gantry's stderr is the driver's
	// The driver and gantry share a process group, killed whatever happens.
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	cmd.Cancel = func() error { return syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) }
	start := time.Now()
	err = cmd.Start()
	if err != nil {
		t.Fatalf("starting the ACP client: %v", err)
	}
	pgid := cmd.Process.Pid
	t.Cleanup(func() { _ = syscall.Kill(-pgid, syscall.SIGKILL) })
	err = cmd.Wait()
	t.Cleanup(func() {
		if t.Failed() {
			t.Logf("stderr of the client and gantry:\n%s", acpTail(stderr.String(), 8000))
		}
	})
	if err != nil {
		t.Fatalf("the ACP client failed after %v: %v\nstdout: %s\nstderr:\n%s", time.Since(start), err, acpTail(stdout.String(), 4000), acpTail(stderr.String(), 8000))
	}
	if dump := os.Getenv("GANTRY_ACP_E2E_DUMP"); dump != "" { // a folder to keep each run's record in
		name := strings.NewReplacer("/", "_", " ", "_").Replace(t.Name())
		_ = os.WriteFile(filepath.Join(dump, fmt.Sprintf("%s-%d.json", name, time.Now().UnixNano())), stdout.Bytes(), 0o644)
	}
	run := &acpRun{}
	if err := json.Unmarshal(stdout.Bytes(), run); err != nil {
		t.Fatalf("the ACP client printed no result (%v):\n%s\nstderr:\n%s", err, acpTail(stdout.String(), 4000), acpTail(stderr.String(), 8000))
	}
	if run.DriverError != nil {
		t.Fatalf("the ACP client failed: %s", *run.DriverError)
	}
	if run.AgentExit == nil || run.AgentExit.Code == nil || *run.AgentExit.Code != 0 {
		t.Errorf("gantry acp did not exit cleanly once its stdin closed: %+v", run.AgentExit)
	}
	acpCheckProtocol(t, run)
	return run
}

func acpTail(s string, n int) string {
	if len(s) > n {
		return "…" + s[len(s)-n:]
	}
	return s
}

// turnContent are the updates that belong to a turn (or to a load's replay).
var turnContent = map[string]bool{
	"user_message_chunk": true, "agent_message_chunk": true, "agent_thought_chunk": true,
	"tool_call": true, "tool_call_update": true, "plan": true,
}

// acpCheckProtocol holds a run to the rules every exchange keeps:
//   - stdout carries JSON-RPC 2.0 messages only, and the SDK accepted every one;
//   - a session's updates follow the session/new response that made it;
//   - a turn's content and the agent's requests come while a session/prompt (or a
//     session/load, for its replay) is pending, never after its response;
//   - a tool call's tool_call comes before its updates, and nothing follows its
//     completed or failed status.
func acpCheckProtocol(t *testing.T, run *acpRun) {
	t.Helper()
	for _, e := range run.SDKErrors {
		t.Errorf("the TypeScript SDK complained: %s", e)
	}
	type pending struct{ method, session string }
	open := map[string]pending{} // the client's requests not yet answered, by id
	known := map[string]bool{}   // sessions the client has the id of
	started := map[string]bool{} // tool calls announced, by session and id
	ended := map[string]bool{}   // tool calls completed or failed
	updates := 0
	for i, w := range run.Wire {
		if w.Raw != nil {
			if w.Dir == "recv" {
				t.Errorf("wire[%d]: gantry wrote a line that is not JSON on stdout: %q", i, *w.Raw)
			}
			continue
		}
		m := w.Msg
		id, hasID := m["id"]
		method, _ := m["method"].(string)
		key := fmt.Sprint(id)
		if w.Dir == "sent" {
			if method != "" && hasID {
				sid, _ := acpDig(m, "params", "sessionId").(string)
				open[key] = pending{method, sid}
			}
			continue
		}
		if m["jsonrpc"] != "2.0" {
			t.Errorf("wire[%d]: not a JSON-RPC 2.0 message: %v", i, m)
		}
		_, hasResult := m["result"]
		_, hasError := m["error"]
		switch {
		case method == "" && hasID && (hasResult != hasError):
			p, ok := open[key]
			if !ok && id != nil {
				t.Errorf("wire[%d]: a response to no pending request: %v", i, m)
			}
			delete(open, key)
			if sid, ok := acpDig(m, "result", "sessionId").(string); ok && p.method == "session/new" {
				known[sid] = true
			}
			if p.method == "session/load" && hasResult {
				known[p.session] = true
			}
		case method != "":
			sid, _ := acpDig(m, "params", "sessionId").(string)
			inTurn := false
			for _, p := range open {
				if p.session == sid && (p.method == "session/prompt" || p.method == "session/load") {
					inTurn = true
				}
			}
			if method != "session/update" {
				if !inTurn && !strings.HasPrefix(method, "$/") {
					t.Errorf("wire[%d]: gantry sent %s outside a turn of session %s", i, method, sid)
				}
				continue
			}
			updates++
			u, _ := acpDig(m, "params", "update").(map[string]any)
			kind, _ := u["sessionUpdate"].(string)
			loading := false
			for _, p := range open {
				loading = loading || p.session == sid && p.method == "session/load"
			}
			if !known[sid] && !loading {
				t.Errorf("wire[%d]: a %s update for session %s before the client knew the session", i, kind, sid)
			}
			if turnContent[kind] && !inTurn {
				t.Errorf("wire[%d]: a %s update for session %s outside any turn (after the prompt's response?): %v", i, kind, sid, u)
			}
			call, _ := u["toolCallId"].(string)
			switch kind {
			case "tool_call":
				if started[sid+"/"+call] {
					t.Errorf("wire[%d]: tool call %s announced twice", i, call)
				}
				started[sid+"/"+call] = true
			case "tool_call_update":
				if !started[sid+"/"+call] {
					t.Errorf("wire[%d]: tool_call_update for %s before its tool_call: %v", i, call, u)
				}
				if ended[sid+"/"+call] {
					t.Errorf("wire[%d]: tool_call_update for %s after it ended: %v", i, call, u)
				}
				if st := u["status"]; st == "completed" || st == "failed" {
					ended[sid+"/"+call] = true
				}
			}
		default:
			t.Errorf("wire[%d]: neither a request, a notification nor a response: %v", i, m)
		}
	}
	if updates != len(run.Updates) {
		t.Errorf("gantry sent %d session/update notifications, the SDK delivered %d", updates, len(run.Updates))
	}
	for key, p := range open {
		t.Errorf("the client's request %s (%s) was never answered", key, p.method)
	}
}

// acpDig follows keys through nested objects (and array indexes given as ints).
func acpDig(v any, path ...any) any {
	for _, p := range path {
		switch k := p.(type) {
		case string:
			m, ok := v.(map[string]any)
			if !ok {
				return nil
			}
			v = m[k]
		case int:
			a, ok := v.([]any)
			if !ok || k >= len(a) {
				return nil
			}
			v = a[k]
		}
	}
	return v
}

// updates returns the session's updates in wire order, with their wire index.
func (r *acpRun) updates(sid string) (out []map[string]any, at []int) {
	for i, w := range r.Wire {
		if w.Dir == "recv" && w.Msg["method"] == "session/update" && acpDig(w.Msg, "params", "sessionId") == sid {
			u, _ := acpDig(w.Msg, "params", "update").(map[string]any)
			out, at = append(out, u), append(at, i)
		}
	}
	return out, at
}

// response returns the wire index of the response to the n-th (from 0) request of
// method the client sent, and the response.
func (r *acpRun) response(method string, n int) (int, map[string]any) {
	for i, w := range r.Wire {
		if w.Dir != "sent" || w.Msg["method"] != method {
			continue
		}
		if n--; n >= 0 {
			continue
		}
		id := fmt.Sprint(w.Msg["id"])
		for j := i + 1; j < len(r.Wire); j++ {
			m := r.Wire[j].Msg
			if r.Wire[j].Dir == "recv" && m["method"] == nil && fmt.Sprint(m["id"]) == id {
				return j, m
			}
		}
		return -1, nil
	}
	return -1, nil
}

// calls returns each tool call's updates (tool_call first) by id, and the ids in the
// order they were announced.
func (r *acpRun) calls(sid string) (map[string][]map[string]any, []string) {
	by := map[string][]map[string]any{}
	var order []string
	ups, _ := r.updates(sid)
	for _, u := range ups {
		kind := u["sessionUpdate"]
		if kind != "tool_call" && kind != "tool_call_update" {
			continue
		}
		id, _ := u["toolCallId"].(string)
		if _, ok := by[id]; !ok {
			order = append(order, id)
		}
		by[id] = append(by[id], u)
	}
	return by, order
}

// acpCheckCall checks one call's updates: tool_call (with a title, the kind and
// rawInput, pending) first, then in_progress if it ran, then the final status last.
func acpCheckCall(t *testing.T, id string, ups []map[string]any, kind string, ran bool, final string) {
	t.Helper()
	if len(ups) == 0 {
		t.Errorf("call %s: no updates", id)
		return
	}
	first := ups[0]
	if first["sessionUpdate"] != "tool_call" {
		t.Errorf("call %s: the first update is %v, not tool_call", id, first["sessionUpdate"])
	}
	if s, _ := first["title"].(string); s == "" {
		t.Errorf("call %s: tool_call without a title: %v", id, first)
	}
	if first["kind"] != kind {
		t.Errorf("call %s: kind %v, want %s", id, first["kind"], kind)
	}
	if first["rawInput"] == nil {
		t.Errorf("call %s: tool_call without rawInput: %v", id, first)
	}
	if st := first["status"]; st != nil && st != "pending" {
		t.Errorf("call %s: tool_call status %v, want pending", id, st)
	}
	var statuses []string
	for _, u := range ups[1:] {
		if st, ok := u["status"].(string); ok {
			statuses = append(statuses, st)
		}
	}
	want := []string{final}
	if ran {
		want = []string{"in_progress", final}
	}
	if !slices.Equal(statuses, want) {
		t.Errorf("call %s: statuses %v, want %v", id, statuses, want)
	}
}

// acpLocations returns the paths of an update's locations.
func acpLocations(u map[string]any) []string {
	var out []string
	locs, _ := u["locations"].([]any)
	for _, l := range locs {
		if p, ok := acpDig(l, "path").(string); ok {
			out = append(out, p)
		}
	}
	return out
}

// acpText joins the text of a session's message chunks of kind, in order.
func acpText(ups []map[string]any, kind string) string {
	var b strings.Builder
	for _, u := range ups {
		if u["sessionUpdate"] == kind {
			if s, ok := acpDig(u, "content", "text").(string); ok {
				b.WriteString(s)
			}
		}
	}
	return b.String()
}

// acpToolNames lists the tools a model request declared.
func acpToolNames(r fakellm.Recorded) []string {
	var names []string
	tools, _ := r.Body["tools"].([]any)
	for _, tl := range tools {
		if n, ok := acpDig(tl, "name").(string); ok {
			names = append(names, n)
		}
	}
	return names
}

// acpBody is a model request's body as JSON text.
func acpBody(r fakellm.Recorded) string {
	b, _ := json.Marshal(r.Body)
	return string(b)
}

func acpStopReason(s acpStepResult) any { return s.Result["stopReason"] }

// acpSession returns the session id the run's session/new step got.
func acpSession(t *testing.T, run *acpRun) string {
	t.Helper()
	for _, s := range run.Steps {
		if s.Op == "new" {
			if s.Error != nil {
				t.Fatalf("session/new failed: %+v", *s.Error)
			}
			if sid, ok := s.Result["sessionId"].(string); ok {
				return sid
			}
		}
	}
	t.Fatal("no session/new step succeeded")
	return ""
}

// acpFakeModel starts fakellm with script and returns it and gantry's environment.
func acpFakeModel(t *testing.T, script ...fakellm.Turn) (*fakellm.Server, []string) {
	srv := fakellm.New(script...)
	t.Cleanup(srv.Close)
	return srv, env(t, "ANTHROPIC_BASE_URL="+srv.URL(), "ANTHROPIC_API_KEY=test")
}

// TestACPWholeTurn plays three prompts in one session: a todo list, read_file,
// edit_file, write_file of a new file and bash, with the permissions answered
// allow_once, then allow_always (the same command is not asked again in the next
// prompt), then reject_once for another command. Once with an editor that offers
// fs/read_text_file and fs/write_text_file (and holds an unsaved buffer), once
// without (the disk is edited).
func TestACPWholeTurn(t *testing.T) {
	t.Parallel()
	for _, editor := range []bool{true, false} {
		name := "disk"
		if editor {
			name = "editor"
		}
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			acpWholeTurn(t, editor)
		})
	}
}

func acpWholeTurn(t *testing.T, editor bool) {
	dir := t.TempDir()
	note, fresh := filepath.Join(dir, "note.txt"), filepath.Join(dir, "sub", "new.txt")
	const onDisk, inBuffer = "alpha\nbeta\n", "alpha\nbeta (unsaved in the editor)\n"
	if err := os.WriteFile(note, []byte(onDisk), 0o644); err != nil {
		t.Fatal(err)
	}
	srv, environ := acpFakeModel(t,
		// prompt 1
		fakellm.Turn{Parts: []fakellm.Part{fakellm.Text("Let me plan and read."),
			fakellm.ToolCall("todo1", "todo_write", `{"todos":[{"id":"1","content":"Read the note","status":"in_progress"},{"id":"2","content":"Fix the note","status":"pending"}]}`),
			fakellm.ToolCall("read1", "read_file", `{"path":"note.txt"}`)}},
		fakellm.Turn{Parts: []fakellm.Part{fakellm.ToolCall("edit1", "edit_file", `{"path":"note.txt","edits":[{"old":"alpha","new":"ALPHA"}]}`)}},
		fakellm.Turn{Parts: []fakellm.Part{fakellm.ToolCall("write1", "write_file", `{"path":"sub/new.txt","content":"brand new\n"}`)}},
		fakellm.Turn{Parts: []fakellm.Part{fakellm.ToolCall("bash1", "bash", `{"command":"echo allowed-once"}`)}},
		fakellm.Turn{Parts: []fakellm.Part{fakellm.Text("First prompt done.")}},
		// prompt 2
		fakellm.Turn{Parts: []fakellm.Part{fakellm.ToolCall("bash2", "bash", `{"command":"echo allowed-always"}`)}},
		fakellm.Turn{Parts: []fakellm.Part{fakellm.Text("Second prompt done.")}},
		// prompt 3
		fakellm.Turn{Parts: []fakellm.Part{fakellm.ToolCall("bash3", "bash", `{"command":"echo allowed-always"}`)}},
		fakellm.Turn{Parts: []fakellm.Part{fakellm.ToolCall("bash4", "bash", `{"command":"touch rejected.txt"}`)}},
		fakellm.Turn{Parts: []fakellm.Part{fakellm.Text("Third prompt done.")}},
	)
	sc := acpScenario{
		Agent:        acpAgent{Cwd: dir},
		Capabilities: map[string]any{"fs": map[string]any{"readTextFile": editor, "writeTextFile": editor}, "terminal": false},
		Permissions:  []string{"allow_once", "allow_once", "allow_once", "allow_always", "reject_once"},
		Steps: []acpStep{
			{"op": "new"},
			{"op": "prompt", "text": "tidy the note"},
			{"op": "prompt", "text": "say it always"},
			{"op": "prompt", "text": "say it again and make a file"},
		},
	}
	if editor {
		sc.Buffers = map[string]string{note: inBuffer}
	}
	run := acpDrive(t, environ, sc)
	sid := acpSession(t, run)

	for _, s := range run.Steps[2:] {
		if s.Error != nil || acpStopReason(s) != "end_turn" {
			t.Errorf("%s: stopReason %v, error %+v; want end_turn", s.Request["prompt"], acpStopReason(s), s.Error)
		}
	}

	// The permission requests: edit, write, bash allowed once, bash allowed always,
	// the other bash rejected; the repeated command is not asked about.
	wantAsked := []struct{ id, kind string }{{"edit1", "edit"}, {"write1", "edit"}, {"bash1", "execute"}, {"bash2", "execute"}, {"bash4", "execute"}}
	if len(run.PermissionRequests) != len(wantAsked) {
		var got []any
		for _, p := range run.PermissionRequests {
			got = append(got, acpDig(p.Params, "toolCall", "toolCallId"))
		}
		t.Fatalf("permission requests for %v, want %v (bash3 repeats an allowed-always command)", got, wantAsked)
	}
	for i, w := range wantAsked {
		p := run.PermissionRequests[i]
		tc, _ := p.Params["toolCall"].(map[string]any)
		if tc["toolCallId"] != w.id || tc["kind"] != w.kind || p.Params["sessionId"] != sid {
			t.Errorf("permission request %d: toolCall %v in session %v, want %s of kind %s", i, tc, p.Params["sessionId"], w.id, w.kind)
		}
		if s, _ := tc["title"].(string); s == "" || tc["rawInput"] == nil {
			t.Errorf("permission request %d: the toolCall lacks a title or rawInput: %v", i, tc)
		}
		var kinds []string
		for _, o := range p.Params["options"].([]any) {
			kinds = append(kinds, acpDig(o, "kind").(string))
		}
		slices.Sort(kinds)
		if !slices.Equal(kinds, []string{"allow_always", "allow_once", "reject_always", "reject_once"}) {
			t.Errorf("permission request %d: option kinds %v", i, kinds)
		}
		if p.Outcome["outcome"] != "selected" {
			t.Errorf("permission request %d: the client could not answer %s: %v", i, p.Answer, p.Outcome)
		}
	}
	for i, id := range []string{"edit1", "write1"} {
		tc := run.PermissionRequests[i].Params["toolCall"].(map[string]any)
		want := map[string]string{"edit1": note, "write1": fresh}[id]
		if locs := acpLocations(tc); !slices.Equal(locs, []string{want}) {
			t.Errorf("the permission request for %s has locations %v, want [%s]", id, locs, want)
		}
	}

	// Each call's updates, in order.
	calls, order := run.calls(sid)
	if want := []string{"todo1", "read1", "edit1", "write1", "bash1", "bash2", "bash3", "bash4"}; !slices.Equal(order, want) {
		t.Errorf("tool calls announced %v, want %v", order, want)
	}
	acpCheckCall(t, "todo1", calls["todo1"], "think", true, "completed")
	acpCheckCall(t, "read1", calls["read1"], "read", true, "completed")
	acpCheckCall(t, "edit1", calls["edit1"], "edit", true, "completed")
	acpCheckCall(t, "write1", calls["write1"], "edit", true, "completed")
	for _, id := range []string{"bash1", "bash2", "bash3"} {
		acpCheckCall(t, id, calls[id], "execute", true, "completed")
	}
	acpCheckCall(t, "bash4", calls["bash4"], "execute", false, "failed")
	for id, path := range map[string]string{"read1": note, "edit1": note, "write1": fresh} {
		if len(calls[id]) > 0 {
			if locs := acpLocations(calls[id][0]); !slices.Equal(locs, []string{path}) {
				t.Errorf("%s: locations %v, want [%s]", id, locs, path)
			}
		}
	}
	if len(calls["bash1"]) > 0 && acpDig(calls["bash1"][0], "rawInput", "command") != "echo allowed-once" {
		t.Errorf("bash1: rawInput %v", calls["bash1"][0]["rawInput"])
	}

	// The diffs of the file tools.
	old := onDisk
	if editor {
		old = inBuffer
	}
	edited := strings.Replace(old, "alpha", "ALPHA", 1)
	acpCheckDiff(t, "edit1", calls["edit1"], note, &old, edited)
	acpCheckDiff(t, "write1", calls["write1"], fresh, nil, "brand new\n")

	// The todo list is a plan.
	ups, _ := run.updates(sid)
	var plan map[string]any
	for _, u := range ups {
		if u["sessionUpdate"] == "plan" {
			plan = u
		}
	}
	if entries, _ := plan["entries"].([]any); len(entries) != 2 || acpDig(entries, 0, "content") != "Read the note" ||
		acpDig(entries, 0, "status") != "in_progress" || acpDig(entries, 1, "status") != "pending" || acpDig(entries, 0, "priority") == nil {
		t.Errorf("the todo list's plan update: %v", plan)
	}
	if got := acpText(ups, "agent_message_chunk"); !strings.Contains(got, "Let me plan and read.") || !strings.Contains(got, "Third prompt done.") {
		t.Errorf("the agent's text: %q", got)
	}

	// What the model was told.
	reqs := srv.Requests()
	if len(reqs) != 10 {
		t.Fatalf("%d model requests, want 10", len(reqs))
	}
	if body := acpBody(reqs[1]); editor != strings.Contains(body, "unsaved in the editor") || !strings.Contains(body, "beta") {
		t.Errorf("read_file's result must show the file as the editor has it (editor: %v): %s", editor, body)
	}
	if body := acpBody(reqs[9]); !strings.Contains(body, "[command rejected by the user]") {
		t.Errorf("the model was not told the command was rejected: %s", body)
	}
	if _, err := os.Stat(filepath.Join(dir, "rejected.txt")); err == nil {
		t.Error("the rejected command ran")
	}
	if body := acpBody(reqs[8]); !strings.Contains(body, "allowed-always") {
		t.Errorf("the always-allowed command's output did not reach the model: %s", body)
	}

	// Where the edits went.
	disk, _ := os.ReadFile(note)
	_, freshErr := os.Stat(fresh)
	if editor {
		if string(disk) != onDisk {
			t.Errorf("with an editor, the disk must be untouched; note.txt is %q", disk)
		}
		if freshErr == nil {
			t.Errorf("with an editor, the new file must go to the editor, not the disk")
		}
		writes := map[string]string{}
		for _, w := range run.FsWrites {
			writes[w.Path] = w.Content
		}
		if writes[note] != edited || writes[fresh] != "brand new\n" || len(run.FsWrites) != 2 {
			t.Errorf("fs/write_text_file calls: %+v", run.FsWrites)
		}
		read := false
		for _, r := range run.FsReads {
			read = read || r.Path == note && r.Served == "buffer"
			if !filepath.IsAbs(r.Path) {
				t.Errorf("fs/read_text_file of a relative path %q", r.Path)
			}
		}
		if !read {
			t.Errorf("note.txt was never read through fs/read_text_file: %+v", run.FsReads)
		}
	} else {
		if string(disk) != edited {
			t.Errorf("note.txt on disk is %q, want %q", disk, edited)
		}
		if b, err := os.ReadFile(fresh); err != nil || string(b) != "brand new\n" {
			t.Errorf("the new file on disk: %q, %v", b, err)
		}
		if len(run.FsReads)+len(run.FsWrites) > 0 {
			t.Errorf("gantry used fs/* methods the client did not offer: reads %+v, writes %+v", run.FsReads, run.FsWrites)
		}
	}
}

// acpCheckDiff checks that a file call's completed update shows the change as diff
// content: the absolute path, the old text (nil: a new file, oldText absent or null)
// and the new text.
func acpCheckDiff(t *testing.T, id string, ups []map[string]any, path string, old *string, new string) {
	t.Helper()
	if len(ups) == 0 {
		return
	}
	last := ups[len(ups)-1]
	content, _ := last["content"].([]any)
	if len(content) != 1 {
		t.Errorf("%s: the completed update's content is %v, want one diff", id, last["content"])
		return
	}
	d, _ := content[0].(map[string]any)
	oldText, hasOld := d["oldText"]
	switch {
	case d["type"] != "diff" || d["path"] != path || d["newText"] != new:
		t.Errorf("%s: diff %v, want path %s and newText %q", id, d, path, new)
	case old == nil && oldText != nil:
		t.Errorf("%s: a new file's diff has oldText %q, want null", id, oldText)
	case old != nil && (!hasOld || oldText != *old):
		t.Errorf("%s: diff oldText %v, want %q", id, oldText, *old)
	}
}

// TestACPCancelWhileBashSleeps cancels a turn while its command runs in gantry's own
// shell: the prompt answers "cancelled" at once, the call fails, the command's
// processes are gone, and the session takes the next prompt.
func TestACPCancelWhileBashSleeps(t *testing.T) {
	t.Parallel()
	marker := fmt.Sprintf("30.%d%04d", os.Getpid()%1000, time.Now().UnixNano()%10000)
	srv, environ := acpFakeModel(t,
		fakellm.Turn{Parts: []fakellm.Part{fakellm.ToolCall("sleep1", "bash", `{"command":"sleep `+marker+`; echo done"}`)}},
		fakellm.Turn{Parts: []fakellm.Part{fakellm.Text("Still here.")}},
	)
	t.Cleanup(func() {
		for _, p := range processesWith(marker) {
			_ = syscall.Kill(p, syscall.SIGKILL)
		}
	})
	run := acpDrive(t, environ, acpScenario{
		Agent:        acpAgent{Cwd: t.TempDir()},
		Capabilities: map[string]any{"fs": map[string]any{"readTextFile": false, "writeTextFile": false}, "terminal": false},
		Permissions:  []string{"allow_once"},
		Steps: []acpStep{
			{"op": "new"},
			{"op": "prompt", "text": "wait a long time", "cancelWhen": map[string]any{"status": "in_progress", "process": marker}},
			{"op": "prompt", "text": "are you there?"},
		},
	})
	sid := acpSession(t, run)
	cancelled, again := run.Steps[2], run.Steps[3]
	if cancelled.Cancel == nil || !cancelled.Cancel.Fired || !cancelled.Cancel.ProcessSeen {
		t.Fatalf("the client never saw the command run, so never cancelled: %+v", cancelled.Cancel)
	}
	if cancelled.Error != nil || acpStopReason(cancelled) != "cancelled" {
		t.Errorf("the cancelled prompt answered %v, error %+v; want stopReason cancelled", cancelled.Result, cancelled.Error)
	}
	if cancelled.CancelToResponseMs > 5000 {
		t.Errorf("the prompt answered %d ms after session/cancel", cancelled.CancelToResponseMs)
	}
	if cancelled.ProcessAtResponse {
		t.Errorf("the command still ran when the prompt answered cancelled (gone %v ms later)", cancelled.ProcessGoneAfterMs)
	}
	calls, _ := run.calls(sid)
	acpCheckCall(t, "sleep1", calls["sleep1"], "execute", true, "failed")
	if pids := processesWith(marker); len(pids) > 0 {
		t.Errorf("the cancelled command is still running: %v", pids)
	}
	if again.Error != nil || acpStopReason(again) != "end_turn" {
		t.Errorf("the prompt after the cancel answered %v, error %+v; want end_turn", again.Result, again.Error)
	}
	reqs := srv.Requests()
	if len(reqs) != 2 {
		t.Fatalf("%d model requests, want 2 (no model call after the cancel)", len(reqs))
	}
	if body := acpBody(reqs[1]); !strings.Contains(body, `"tool_use_id":"sleep1"`) || !strings.Contains(body, "are you there?") {
		t.Errorf("the next turn's request lacks the cancelled call's result or the new prompt: %s", body)
	}
	t.Logf("session/cancel → stopReason cancelled in %d ms", cancelled.CancelToResponseMs)
}

// TestACPCancelWhileModelStreams cancels while the model's answer is streaming (and
// stalls): the prompt answers "cancelled" at once and the session goes on.
func TestACPCancelWhileModelStreams(t *testing.T) {
	t.Parallel()
	srv, environ := acpFakeModel(t,
		fakellm.Turn{Parts: []fakellm.Part{fakellm.Text("I am thinking about this at great length, slowly, word by word.")}, StallAfter: 5},
		fakellm.Turn{Parts: []fakellm.Part{fakellm.Text("Back again.")}},
	)
	run := acpDrive(t, environ, acpScenario{
		Agent: acpAgent{Cwd: t.TempDir()},
		Steps: []acpStep{
			{"op": "new"},
			{"op": "prompt", "text": "think hard", "cancelWhen": map[string]any{"update": "agent_message_chunk"}},
			{"op": "prompt", "text": "and now?"},
		},
	})
	cancelled, again := run.Steps[2], run.Steps[3]
	if cancelled.Cancel == nil || !cancelled.Cancel.Fired {
		t.Fatalf("the client never saw the answer stream, so never cancelled: %+v", cancelled.Cancel)
	}
	if cancelled.Error != nil || acpStopReason(cancelled) != "cancelled" {
		t.Errorf("the cancelled prompt answered %v, error %+v; want stopReason cancelled", cancelled.Result, cancelled.Error)
	}
	if cancelled.CancelToResponseMs > 5000 {
		t.Errorf("the prompt answered %d ms after session/cancel", cancelled.CancelToResponseMs)
	}
	if again.Error != nil || acpStopReason(again) != "end_turn" {
		t.Errorf("the prompt after the cancel answered %v, error %+v; want end_turn", again.Result, again.Error)
	}
	if reqs := srv.Requests(); len(reqs) != 2 || !strings.Contains(acpBody(reqs[1]), "and now?") {
		t.Errorf("%d model requests; the second must carry the new prompt", len(reqs))
	}
	t.Logf("session/cancel → stopReason cancelled in %d ms", cancelled.CancelToResponseMs)
}

// TestACPCancelWithPermissionPending cancels while gantry waits for a permission
// answer; the client then answers the request "cancelled", as the protocol asks.
func TestACPCancelWithPermissionPending(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	srv, environ := acpFakeModel(t,
		fakellm.Turn{Parts: []fakellm.Part{fakellm.ToolCall("held1", "bash", `{"command":"touch held.txt"}`)}},
		fakellm.Turn{Parts: []fakellm.Part{fakellm.Text("Fine, I will not.")}},
	)
	run := acpDrive(t, environ, acpScenario{
		Agent:       acpAgent{Cwd: dir},
		Permissions: []string{"hold"},
		Steps: []acpStep{
			{"op": "new"},
			{"op": "prompt", "text": "make a file"},
			{"op": "prompt", "text": "never mind"},
		},
	})
	sid := acpSession(t, run)
	if len(run.PermissionRequests) != 1 || run.PermissionRequests[0].Outcome["outcome"] != "cancelled" || len(run.Cancels) != 1 {
		t.Fatalf("permission requests %+v, cancels %+v", run.PermissionRequests, run.Cancels)
	}
	p := run.Steps[2]
	if p.Error != nil || acpStopReason(p) != "cancelled" {
		t.Errorf("the prompt answered %v, error %+v; want stopReason cancelled", p.Result, p.Error)
	}
	calls, _ := run.calls(sid)
	acpCheckCall(t, "held1", calls["held1"], "execute", false, "failed")
	if _, err := os.Stat(filepath.Join(dir, "held.txt")); err == nil {
		t.Error("the command ran although its permission was cancelled")
	}
	if p := run.Steps[3]; p.Error != nil || acpStopReason(p) != "end_turn" {
		t.Errorf("the prompt after the cancel answered %v, error %+v", p.Result, p.Error)
	}
	if reqs := srv.Requests(); len(reqs) != 2 || !strings.Contains(acpBody(reqs[1]), `"tool_use_id":"held1"`) {
		t.Errorf("%d model requests; the second must carry held1's result", len(reqs))
	}
}

// TestACPLoadReplaysHistory stops gantry after a turn, starts another on the same
// data, and loads the session: the history comes back as updates before the
// session/load response, and the next prompt continues the conversation.
func TestACPLoadReplaysHistory(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "note.txt"), []byte("hello from the note\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	srv, environ := acpFakeModel(t,
		fakellm.Turn{Parts: []fakellm.Part{fakellm.Text("Let me look."), fakellm.ToolCall("look1", "read_file", `{"path":"note.txt"}`)}},
		fakellm.Turn{Parts: []fakellm.Part{fakellm.Text("The note says hello.")}},
		fakellm.Turn{Parts: []fakellm.Part{fakellm.Text("You asked about the note.")}},
	)
	first := acpDrive(t, environ, acpScenario{
		Agent: acpAgent{Cwd: dir},
		Steps: []acpStep{{"op": "new"}, {"op": "prompt", "text": "what does the plum note say?"}},
	})
	sid := acpSession(t, first)
	if acpStopReason(first.Steps[2]) != "end_turn" {
		t.Fatalf("first prompt: %+v", first.Steps[2])
	}

	second := acpDrive(t, environ, acpScenario{
		Agent: acpAgent{Cwd: dir},
		Steps: []acpStep{{"op": "load", "sessionId": sid}, {"op": "prompt", "text": "what did I ask?"}},
	})
	if s := second.Steps[1]; s.Error != nil {
		t.Fatalf("session/load: %+v", *s.Error)
	}
	loadAt, _ := second.response("session/load", 0)
	ups, at := second.updates(sid)
	var replay []map[string]any
	for i, u := range ups {
		if at[i] < loadAt {
			replay = append(replay, u)
		}
	}
	if got := acpText(replay, "user_message_chunk"); !strings.Contains(got, "what does the plum note say?") {
		t.Errorf("the replay lacks the first prompt (%q): %v", got, replay)
	}
	if got := acpText(replay, "agent_message_chunk"); !strings.Contains(got, "Let me look.") || !strings.Contains(got, "The note says hello.") {
		t.Errorf("the replay lacks the answer (%q)", got)
	}
	var kinds []string
	for _, u := range replay {
		if id := u["toolCallId"]; id != nil {
			kinds = append(kinds, fmt.Sprintf("%s:%v:%v", u["sessionUpdate"], id, u["status"]))
		}
	}
	if want := []string{"tool_call:look1:pending", "tool_call_update:look1:completed"}; !slices.Equal(kinds, want) {
		t.Errorf("the replayed tool call: %v, want %v", kinds, want)
	}
	// The order of the conversation: prompt, text, call, result, answer.
	var seq []string
	for _, u := range replay {
		k, _ := u["sessionUpdate"].(string)
		if turnContent[k] && (len(seq) == 0 || seq[len(seq)-1] != k) {
			seq = append(seq, k)
		}
	}
	if want := []string{"user_message_chunk", "agent_message_chunk", "tool_call", "tool_call_update", "agent_message_chunk"}; !slices.Equal(seq, want) {
		t.Errorf("replay order %v, want %v", seq, want)
	}
	if p := second.Steps[2]; p.Error != nil || acpStopReason(p) != "end_turn" {
		t.Errorf("the prompt on the loaded session: %v %+v", p.Result, p.Error)
	}
	reqs := srv.Requests()
	if len(reqs) != 3 {
		t.Fatalf("%d model requests, want 3", len(reqs))
	}
	body := acpBody(reqs[2])
	for _, want := range []string{"what does the plum note say?", "Let me look.", `"tool_use_id":"look1"`, "hello from the note", "The note says hello.", "what did I ask?"} {
		if !strings.Contains(body, want) {
			t.Errorf("the loaded session's request lacks %q: %s", want, body)
		}
	}
}

// TestACPModeChangeToPlan switches a session to plan mode between two prompts, with
// session/set_mode and with session/set_config_option: the second turn's model
// request declares no tool that writes or runs anything.
func TestACPModeChangeToPlan(t *testing.T) {
	t.Parallel()
	for _, how := range []string{"set_mode", "set_config_option"} {
		t.Run(how, func(t *testing.T) {
			t.Parallel()
			srv, environ := acpFakeModel(t,
				fakellm.Turn{Parts: []fakellm.Part{fakellm.Text("One.")}},
				fakellm.Turn{Parts: []fakellm.Part{fakellm.Text("Two, planning.")}},
			)
			change := acpStep{"op": "set_mode", "modeId": "plan"}
			if how == "set_config_option" {
				change = acpStep{"op": "set_config_option", "configId": "mode", "value": "plan"}
			}
			run := acpDrive(t, environ, acpScenario{
				Agent: acpAgent{Cwd: t.TempDir()},
				Steps: []acpStep{{"op": "new"}, {"op": "prompt", "text": "one"}, change, {"op": "prompt", "text": "two"}},
			})
			if s := run.Steps[3]; s.Error != nil {
				t.Fatalf("%s: %+v", how, *s.Error)
			}
			if how == "set_config_option" {
				var mode any
				opts, _ := run.Steps[3].Result["configOptions"].([]any)
				for _, o := range opts {
					if acpDig(o, "id") == "mode" {
						mode = acpDig(o, "currentValue")
					}
				}
				if mode != "plan" || len(opts) < 2 {
					t.Errorf("set_config_option answered %v; want the complete options with mode plan", run.Steps[3].Result)
				}
			}
			for _, i := range []int{2, 4} {
				if s := run.Steps[i]; s.Error != nil || acpStopReason(s) != "end_turn" {
					t.Errorf("prompt %d: %v %+v", i, s.Result, s.Error)
				}
			}
			reqs := srv.Requests()
			if len(reqs) != 2 {
				t.Fatalf("%d model requests, want 2", len(reqs))
			}
			before, after := acpToolNames(reqs[0]), acpToolNames(reqs[1])
			for _, name := range []string{"write_file", "edit_file", "apply_patch", "bash"} {
				if !slices.Contains(before, name) {
					t.Errorf("before the change the request lacks %s: %v", name, before)
				}
				if slices.Contains(after, name) {
					t.Errorf("in plan mode the request declares %s: %v", name, after)
				}
			}
			if !slices.Contains(after, "read_file") {
				t.Errorf("in plan mode the request lacks read_file: %v", after)
			}
		})
	}
}

// TestACPAvailableCommands: the slash commands arrive after the session/new response,
// never before it.
func TestACPAvailableCommands(t *testing.T) {
	t.Parallel()
	_, environ := acpFakeModel(t)
	run := acpDrive(t, environ, acpScenario{
		Agent: acpAgent{Cwd: t.TempDir()},
		Steps: []acpStep{{"op": "new"}, {"op": "sleep", "ms": 300}},
	})
	sid := acpSession(t, run)
	newAt, resp := run.response("session/new", 0)
	if resp == nil {
		t.Fatal("no session/new response on the wire")
	}
	ups, at := run.updates(sid)
	var names []string
	count := 0
	for i, u := range ups {
		if u["sessionUpdate"] != "available_commands_update" {
			continue
		}
		count++
		if at[i] < newAt {
			t.Errorf("available_commands_update (wire %d) before the session/new response (wire %d)", at[i], newAt)
		}
		names = names[:0]
		for _, c := range u["availableCommands"].([]any) {
			names = append(names, acpDig(c, "name").(string))
			if d, _ := acpDig(c, "description").(string); d == "" {
				t.Errorf("command %v has no description", c)
			}
		}
	}
	if count == 0 {
		t.Fatalf("no available_commands_update after session/new; updates: %v", ups)
	}
	for _, want := range []string{"help", "compact", "mode", "model"} {
		if !slices.Contains(names, want) {
			t.Errorf("the available commands %v lack %s", names, want)
		}
	}
}

// acpRaw is gantry acp on pipes, for the tests that write the wire themselves.
type acpRaw struct {
	t     *testing.T
	stdin io.WriteCloser
	lines chan map[string]any
	mu    sync.Mutex
	all   []string // every stdout line
	bad   []string // stdout lines that are not JSON-RPC
}

func startACPRaw(t *testing.T, environ []string, dir string) *acpRaw {
	t.Helper()
	cmd := exec.Command(binary, "acp")
	cmd.Dir, cmd.Env = dir, environ
	stdin, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	r := &acpRaw{t: t, stdin: stdin, lines: make(chan map[string]any, 100)}
	done := make(chan struct{})
	go func() {
		defer close(done)
		defer close(r.lines)
		sc := bufio.NewScanner(stdout)
		sc.Buffer(make([]byte, 64<<10), 64<<20)
		for sc.Scan() {
			line := sc.Text()
			var m map[string]any
			ok := json.Unmarshal([]byte(line), &m) == nil && m["jsonrpc"] == "2.0"
			r.mu.Lock()
			r.all = append(r.all, line)
			if !ok {
				r.bad = append(r.bad, line)
			}
			r.mu.Unlock()
			if ok {
				r.lines <- m
			}
		}
	}()
	t.Cleanup(func() {
		_ = stdin.Close()
		exited := make(chan error, 1)
		go func() { <-done; exited <- cmd.Wait() }()
		select {
		case err := <-exited:
			if err != nil {
				t.Errorf("gantry acp exited with %v once its stdin closed", err)
			}
		case <-time.After(10 * time.Second):
			_ = cmd.Process.Kill()
			<-exited
			t.Errorf("gantry acp did not exit within 10s of its stdin closing")
		}
		if t.Failed() {
			t.Logf("gantry's stderr:\n%s", acpTail(stderr.String(), 8000))
		}
	})
	return r
}

func (r *acpRaw) send(line string) {
	r.t.Helper()
	if _, err := io.WriteString(r.stdin, line+"\n"); err != nil {
		r.t.Fatalf("writing to gantry: %v", err)
	}
}

// await returns the next response whose id is id (JSON-encoded: `7`, `null`),
// skipping notifications.
func (r *acpRaw) await(id string) map[string]any {
	r.t.Helper()
	deadline := time.After(15 * time.Second)
	for {
		select {
		case m, ok := <-r.lines:
			if !ok {
				r.t.Fatalf("gantry closed stdout while the test waited for the response %s", id)
			}
			if _, isCall := m["method"]; isCall {
				continue
			}
			got, _ := json.Marshal(m["id"])
			if string(got) == id {
				return m
			}
			r.t.Errorf("an unexpected response while waiting for %s: %v", id, m)
		case <-deadline:
			r.t.Fatalf("no response %s within 15s", id)
		}
	}
}

// expectError checks that response m is an error of code.
func (r *acpRaw) expectError(what string, m map[string]any, code int) {
	r.t.Helper()
	got, _ := acpDig(m, "error", "code").(float64)
	if int(got) != code || m["result"] != nil {
		r.t.Errorf("%s: got %v, want error %d", what, m, code)
	}
}

// expectServed checks that the connection still answers a request.
func (r *acpRaw) expectServed(after string, id int, method string) {
	r.t.Helper()
	params := `{}`
	if method == "initialize" {
		params = `{"protocolVersion":1,"clientCapabilities":{}}`
	}
	r.send(fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":%q,"params":%s}`, id, method, params))
	m := r.await(fmt.Sprint(id))
	if m["result"] == nil {
		r.t.Errorf("after %s, %s answered %v", after, method, m)
	}
}

// TestACPBadInputStaysServed writes broken and wrong messages straight to gantry's
// stdin: each gets its JSON-RPC error, and the connection keeps serving; stdout
// never carries anything but JSON-RPC.
func TestACPBadInputStaysServed(t *testing.T) {
	t.Parallel()
	_, environ := acpFakeModel(t)
	dir := t.TempDir()
	r := startACPRaw(t, environ, dir)

	r.send(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":1,"clientCapabilities":{}}}`)
	if v := acpDig(r.await("1"), "result", "protocolVersion"); v != float64(1) {
		t.Fatalf("initialize: protocolVersion %v", v)
	}

	r.send(`{"jsonrpc":"2.0","id":2,"method":"initialize",`)
	r.expectError("a malformed line", r.await("null"), -32700)
	r.expectServed("a malformed line", 3, "initialize")

	r.send(`[{"jsonrpc":"2.0","id":4,"method":"initialize","params":{"protocolVersion":1}}]`)
	r.expectError("a batch", r.await("null"), -32600)
	r.expectServed("a batch", 5, "session/list")

	r.send(`{"jsonrpc":"2.0","id":6,"method":"gantry/no_such_method","params":{}}`)
	r.expectError("an unknown method", r.await("6"), -32601)
	r.send(`{"jsonrpc":"2.0","method":"_gantry/unknown_notification","params":{}}`) // ignored
	r.expectServed("an unknown method", 7, "initialize")

	r.send(`{"jsonrpc":"2.0","id":8,"method":"session/prompt","params":{"sessionId":"no-such-session","prompt":[{"type":"text","text":"hi"}]}}`)
	r.expectError("a prompt for an unknown session", r.await("8"), -32002)
	r.expectServed("a prompt for an unknown session", 9, "session/list")

	r.send(`{"jsonrpc":"2.0","id":10,"method":"session/new","params":{"cwd":` + strconvQuote(dir) + `}}`)
	r.expectError("session/new without mcpServers", r.await("10"), -32602)
	r.expectServed("session/new without mcpServers", 11, "initialize")

	r.send(`{"jsonrpc":"2.0","id":12,"method":"session/new","params":{"cwd":"relative/dir","mcpServers":[]}}`)
	r.expectError("session/new with a relative cwd", r.await("12"), -32602)
	r.expectServed("session/new with a relative cwd", 13, "session/list")

	r.send(`{"jsonrpc":"2.0","id":30,"method":"session/load","params":{"sessionId":"no-such-session","cwd":` + strconvQuote(dir) + `,"mcpServers":[]}}`)
	r.expectError("loading an unknown session", r.await("30"), -32002)
	r.send(`{"jsonrpc":"2.0","id":31,"method":"session/set_mode","params":{"sessionId":"no-such-session","modeId":"plan"}}`)
	r.expectError("set_mode of an unknown session", r.await("31"), -32002)
	r.expectServed("an unknown session", 32, "initialize")

	huge := `{"jsonrpc":"2.0","id":14,"method":"session/prompt","params":{"sessionId":"x","prompt":[{"type":"text","text":"` +
		strings.Repeat("a", 11<<20) + `"}]}}`
	start := time.Now()
	r.send(huge)
	m := r.await("14")
	if m["error"] == nil {
		t.Errorf("a line over 10 MiB: got %v, want an error", m)
	}
	r.expectServed("a line over 10 MiB", 15, "initialize")
	t.Logf("the 11 MiB line was refused in %v", time.Since(start))

	r.send(`{"jsonrpc":"2.0","id":16,"method":"session/new","params":{"cwd":` + strconvQuote(dir) + `,"mcpServers":[]}}`)
	if sid, _ := acpDig(r.await("16"), "result", "sessionId").(string); sid == "" {
		t.Error("a good session/new after the bad input failed")
	}

	r.mu.Lock()
	defer r.mu.Unlock()
	for _, line := range r.bad {
		t.Errorf("stdout carried a line that is not JSON-RPC 2.0: %q", acpTail(line, 300))
	}
	if len(r.all) == 0 {
		t.Error("stdout carried nothing")
	}
}

func strconvQuote(s string) string {
	b, _ := json.Marshal(s)
	return string(b)
}
