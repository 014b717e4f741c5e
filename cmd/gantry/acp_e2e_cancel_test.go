package main

// End-to-end tests of `gantry acp` (see acp_e2e_test.go): cancellation.

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/gantry-dev/gantry/internal/llm/fakellm"
)

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
