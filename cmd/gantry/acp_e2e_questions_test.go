package main

// The editor face's questions through the TypeScript ACP client ("always" grants, the
// plan's approval, a patch's diff), an empty prompt, and two sessions sharing a server.

import (
	"encoding/json"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/gantry-dev/gantry/internal/llm/fakellm"
)

// allow_always keeps the grant its option names: after "always" on `echo a`, `echo b`
// runs without a question and `git status` is asked.
func TestACPAllowAlwaysKeepsTheGrant(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	srv, environ := acpFakeModel(t,
		call("e1", "bash", `{"command":"echo a"}`),
		call("e2", "bash", `{"command":"echo b"}`),
		call("g1", "bash", `{"command":"git status"}`),
		say("done"),
	)
	run := acpDrive(t, environ, acpScenario{
		Agent:       acpAgent{Cwd: dir},
		Permissions: []string{"allow_always", "reject_once"},
		Steps:       []acpStep{{"op": "new"}, {"op": "prompt", "text": "echo twice"}},
	})
	if n := len(run.PermissionRequests); n != 2 {
		t.Fatalf("%d permission requests, want echo a and git status", n)
	}
	if id := acpDig(run.PermissionRequests[1].Params, "toolCall", "toolCallId"); id != "g1" {
		t.Fatalf("the second question is for %v, want g1 (echo b is granted)", id)
	}
	var always string
	for _, o := range run.PermissionRequests[0].Params["options"].([]any) {
		if acpDig(o, "kind") == "allow_always" {
			always, _ = acpDig(o, "name").(string)
		}
	}
	// The option is plain text in the editor: the programs it allows in words, not
	// Markdown quotes or the rules' regular expressions.
	if always != "Always allow echo commands" {
		t.Errorf("the allow_always option says %q, want %q", always, "Always allow echo commands")
	}
	if got := toolResult(srv.Requests()[2], "e2"); got != "b" {
		t.Errorf("echo b gave %q", got)
	}
}

// "Yes, and accept edits" leaves plan mode for accept-edits: the client is told, and
// the model is told the mode it is in.
func TestACPPlanApprovalTellsTheMode(t *testing.T) {
	t.Parallel()
	srv, environ := acpFakeModel(t,
		call("p1", "enter_plan_mode", `{}`),
		call("p2", "exit_plan_mode", `{"plan":"1. Change it."}`),
		say("Changing it."),
	)
	run := acpDrive(t, environ, acpScenario{
		Agent:       acpAgent{Cwd: t.TempDir()},
		Permissions: []string{"allow_always"}, // the plan request's "Yes, and accept edits"
		Steps:       []acpStep{{"op": "new"}, {"op": "set_mode", "modeId": "yolo"}, {"op": "prompt", "text": "plan it"}},
	})
	sid := acpSession(t, run)
	ups, _ := run.updates(sid)
	var modes []string
	for _, u := range ups {
		if u["sessionUpdate"] == "current_mode_update" {
			modes = append(modes, u["currentModeId"].(string))
		}
	}
	if strings.Join(modes, " ") != "plan accept-edits" {
		t.Errorf("mode updates %v, want plan then accept-edits", modes)
	}
	if body := acpBody(srv.Requests()[2]); !strings.Contains(body, "is in accept-edits mode") {
		t.Errorf("the model was not told it is in accept-edits mode: %s", body)
	}
}

// An empty prompt is invalid params (-32602), and the session goes on.
func TestACPEmptyPromptIsInvalid(t *testing.T) {
	t.Parallel()
	_, environ := acpFakeModel(t, say("after the empty one"))
	run := acpDrive(t, environ, acpScenario{
		Agent: acpAgent{Cwd: t.TempDir()},
		Steps: []acpStep{{"op": "new"}, {"op": "prompt", "text": "   "}, {"op": "prompt", "text": "hello"}},
	})
	bad := run.Steps[2]
	if bad.Error == nil || bad.Error.Code != -32602 || !regexp.MustCompile(`(?i)empty`).MatchString(bad.Error.Message+strings.Join([]string{acpString(bad.Error.Data)}, "")) {
		t.Fatalf("an empty prompt: %+v", bad)
	}
	if acpStopReason(run.Steps[3]) != "end_turn" {
		t.Errorf("the session did not go on: %+v", run.Steps[3])
	}
}

func acpString(v any) string {
	if m, ok := v.(map[string]any); ok {
		if s, ok := m["error"].(string); ok {
			return s
		}
	}
	return ""
}

// Two sessions of one connection in one folder share the MCP server of the config:
// one process, as for every resource the lifecycle seam owns.
func TestACPSessionsShareResources(t *testing.T) {
	t.Parallel()
	echo := echoServer(t)
	dir := t.TempDir()
	writeFiles(t, dir, map[string]string{".gantry/config.yaml": "mcpServers:\n  echo:\n    command: " + echo + "\n"})
	srv, environ := acpFakeModel(t,
		call("m1", "mcp__echo__pid", `{}`), say("first"),
		call("m2", "mcp__echo__pid", `{}`), say("second"),
	)
	run := acpDrive(t, environ, acpScenario{
		Agent:       acpAgent{Cwd: dir, Args: []string{"acp", "--trust"}},
		Permissions: []string{"allow_once", "allow_once"},
		Steps: []acpStep{
			{"op": "new"}, {"op": "prompt", "text": "pid one"},
			{"op": "new"}, {"op": "prompt", "text": "pid two"},
		},
	})
	for _, st := range run.Steps[1:] {
		if st.Error != nil {
			t.Fatalf("%s: %+v", st.Op, *st.Error)
		}
	}
	if len(srv.Requests()) != 4 {
		t.Fatalf("%d requests", len(srv.Requests()))
	}
	one := toolResult(srv.Requests()[1], "m1")
	two := toolResult(srv.Requests()[3], "m2")
	if !regexp.MustCompile(`^\d+$`).MatchString(one) || one != two {
		t.Errorf("the two sessions reached servers %q and %q; want one server", one, two)
	}
}

// toolResult is the text of the result of call id in a model request.
func toolResult(r fakellm.Recorded, id string) string {
	msgs, _ := r.Body["messages"].([]any)
	for _, m := range msgs {
		content, _ := acpDig(m, "content").([]any)
		for _, b := range content {
			if acpDig(b, "type") != "tool_result" || acpDig(b, "tool_use_id") != id {
				continue
			}
			switch c := acpDig(b, "content").(type) {
			case string:
				return strings.TrimSpace(c)
			case []any:
				var sb strings.Builder
				for _, x := range c {
					if s, ok := acpDig(x, "text").(string); ok {
						sb.WriteString(s)
					}
				}
				return strings.TrimSpace(sb.String())
			}
		}
	}
	return ""
}

// The permission request of apply_patch shows the diff the patch would make.
func TestACPPatchQuestionShowsTheDiff(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	writeFiles(t, dir, map[string]string{"a.txt": "one\ntwo\n"})
	patch := "*** Begin Patch\n*** Update File: a.txt\n@@\n-two\n+TWO\n*** Add File: b.txt\n+new\n*** End Patch"
	in, _ := json.Marshal(map[string]string{"patch": patch})
	_, environ := acpFakeModel(t, call("p1", "apply_patch", string(in)), say("patched"))
	run := acpDrive(t, environ, acpScenario{
		Agent: acpAgent{Cwd: dir},
		Steps: []acpStep{{"op": "new"}, {"op": "prompt", "text": "patch it"}},
	})
	if len(run.PermissionRequests) != 1 {
		t.Fatalf("%d permission requests", len(run.PermissionRequests))
	}
	tc := run.PermissionRequests[0].Params["toolCall"].(map[string]any)
	var diffs []string
	for _, c := range tc["content"].([]any) {
		if acpDig(c, "type") == "diff" {
			diffs = append(diffs, acpDig(c, "path").(string)+"="+acpDig(c, "newText").(string))
		}
	}
	want := []string{filepath.Join(dir, "a.txt") + "=one\nTWO\n", filepath.Join(dir, "b.txt") + "=new\n"}
	if strings.Join(diffs, "|") != strings.Join(want, "|") {
		t.Errorf("the question's diffs %q, want %q", diffs, want)
	}
	if title, _ := tc["title"].(string); title != "Patch a.txt, b.txt" {
		t.Errorf("title %q", title)
	}
}
