package main

// End-to-end test of `gantry acp` (see acp_e2e_test.go): a plan's approval request
// shows the rules approving grants.

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gantry-dev/gantry/internal/llm/fakellm"
)

// TestACPPlanShowsItsRules: exit_plan_mode with allowed_prompts ["bash"] asks with the
// plan and, in a second text block, the rule with its warning; approved once, the
// rule holds for the session: the command that follows is not asked about.
func TestACPPlanShowsItsRules(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	_, environ := acpFakeModel(t,
		fakellm.Turn{Parts: []fakellm.Part{fakellm.ToolCall("p1", "exit_plan_mode", `{"plan":"1. make a file","allowed_prompts":["bash"]}`)}},
		fakellm.Turn{Parts: []fakellm.Part{fakellm.ToolCall("b1", "bash", `{"command":"touch made-by-plan"}`)}},
		fakellm.Turn{Parts: []fakellm.Part{fakellm.Text("done")}},
	)
	run := acpDrive(t, environ, acpScenario{
		Agent:       acpAgent{Cwd: dir},
		Permissions: []string{"allow_once"},
		Steps:       []acpStep{{"op": "new"}, {"op": "set_mode", "modeId": "plan"}, {"op": "prompt", "text": "plan it"}},
	})
	if s := run.Steps[len(run.Steps)-1]; s.Error != nil || acpStopReason(s) != "end_turn" {
		t.Fatalf("prompt: stopReason %v, error %+v", acpStopReason(s), s.Error)
	}
	if len(run.PermissionRequests) != 1 {
		t.Fatalf("%d permission requests, want only the plan's", len(run.PermissionRequests))
	}
	p := run.PermissionRequests[0].Params
	if id := acpDig(p, "toolCall", "toolCallId"); id != "p1" {
		t.Fatalf("the request is for %v, want p1", id)
	}
	plan, _ := acpDig(p, "toolCall", "content", 0, "content", "text").(string)
	rules, _ := acpDig(p, "toolCall", "content", 1, "content", "text").(string)
	if plan != "1. make a file" || !strings.Contains(rules, "for this session only") || !strings.Contains(rules, "  • bash\n    ⚠ allows every command without asking") {
		t.Errorf("the plan's request shows the plan %q and the rules %q", plan, rules)
	}
	if _, err := os.Stat(filepath.Join(dir, "made-by-plan")); err != nil {
		t.Errorf("the command the plan allowed did not run: %v", err)
	}
}
