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
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/gantry-dev/gantry/internal/llm/fakellm"
	"github.com/gantry-dev/gantry/internal/testenv"
)

// acpClientDir holds the test client: package.json, package-lock.json, drive.mjs.
const acpClientDir = "testdata/acp-client"

// acpSDKVersion is the version of @agentclientprotocol/sdk the client is pinned to.
const acpSDKVersion = "2.4.0"

// acpDriver returns node and the driver script; a missing node ends the test as
// testenv says, a missing SDK fails it with what to do.
func acpDriver(t *testing.T) (node, script string) {
	t.Helper()
	node = testenv.Need(t, "node")
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
