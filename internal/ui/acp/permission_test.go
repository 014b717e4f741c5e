package acp

import (
	"os"
	"strings"
	"testing"

	sdk "github.com/coder/acp-go-sdk"

	"github.com/gantry-dev/gantry/internal/llm"
	"github.com/gantry-dev/gantry/internal/llm/scripted"
)

func bashStep(id, cmd string) scripted.Step {
	return scripted.Step{Calls: []scripted.Call{{ID: id, Name: "bash", Input: `{"command":"` + cmd + `"}`}}}
}

// Allow once asks again next time; allow always is remembered by gantry for the
// session (for the same command); a rejection fails the call and tells the model.
func TestPermissionAnswers(t *testing.T) {
	m := scripted.New(
		bashStep("b1", "echo one"), scripted.Step{Text: "1"},
		bashStep("b2", "echo two"), scripted.Step{Text: "2"},
		bashStep("b3", "echo two"), scripted.Step{Text: "3"},
		scripted.Step{Calls: []scripted.Call{{ID: "w1", Name: "write_file", Input: `{"path":"x.txt","content":"x"}`}}}, scripted.Step{Text: "4"},
	)
	h := start(t, m, sdk.ClientCapabilities{})
	id := h.newSession()
	choice := optAllow
	h.client.answer = func(p sdk.RequestPermissionRequest) (sdk.RequestPermissionResponse, error) {
		kinds := []string{}
		for _, o := range p.Options {
			kinds = append(kinds, string(o.Kind))
		}
		if strings.Join(kinds, ",") != "allow_once,allow_always,reject_once,reject_always" {
			t.Errorf("options %v", kinds)
		}
		return sdk.RequestPermissionResponse{Outcome: sdk.NewRequestPermissionOutcomeSelected(sdk.PermissionOptionId(choice))}, nil
	}
	h.prompt(id, "one")
	if n := len(h.client.perms); n != 1 || h.client.perms[0].ToolCall.ToolCallId != "b1" {
		t.Fatalf("permission requests after allow once: %d", n)
	}
	choice = optAllowAlways
	h.prompt(id, "two")
	choice = optReject
	h.prompt(id, "three")
	if n := len(h.client.perms); n != 2 {
		t.Errorf("bash was asked %d times; allow always should have settled the third call", n)
	}
	if got := lastResult(t, m, "b3"); !strings.Contains(got, "two") {
		t.Errorf("b3 after allow always: %q", got)
	}
	h.prompt(id, "four")
	us := h.client.snapshot()
	if f := finalUpdate(us, "w1"); f == nil || *f.Status != sdk.ToolCallStatusFailed {
		t.Errorf("rejected write: %+v", f)
	}
	if got := lastResult(t, m, "w1"); got != "[write_file rejected by the user]" {
		t.Errorf("the model read %q", got)
	}
	if ev := strings.Join(callEvents(us, "w1"), ","); ev != "tool_call:pending,failed" {
		t.Errorf("rejected call events %s", ev)
	}
}

// A rejected command gives the model the seed's sentence.
func TestRejectedCommand(t *testing.T) {
	m := scripted.New(bashStep("b1", "touch nope"), scripted.Step{Text: "ok"})
	h := start(t, m, sdk.ClientCapabilities{})
	h.client.answer = func(sdk.RequestPermissionRequest) (sdk.RequestPermissionResponse, error) {
		return sdk.RequestPermissionResponse{Outcome: sdk.NewRequestPermissionOutcomeSelected(optRejectAlways)}, nil
	}
	id := h.newSession()
	h.prompt(id, "go")
	if got := lastResult(t, m, "b1"); got != "[command rejected by the user]" {
		t.Errorf("the model read %q", got)
	}
	if f := finalUpdate(h.client.snapshot(), "b1"); *f.Status != sdk.ToolCallStatusFailed {
		t.Errorf("status %s", *f.Status)
	}
}

// A plan is approved through a switch_mode request; "accept edits" leaves plan mode
// for accept-edits, and the client is told.
func TestPlanApproval(t *testing.T) {
	m := scripted.New(
		scripted.Step{Calls: []scripted.Call{{ID: "p1", Name: "enter_plan_mode", Input: `{}`}}},
		scripted.Step{Calls: []scripted.Call{{ID: "p2", Name: "exit_plan_mode", Input: `{"plan":"1. do it"}`}}},
		scripted.Step{Text: "planned"},
	)
	h := start(t, m, sdk.ClientCapabilities{})
	h.client.answer = func(p sdk.RequestPermissionRequest) (sdk.RequestPermissionResponse, error) {
		if p.ToolCall.Kind != nil && *p.ToolCall.Kind == sdk.ToolKindSwitchMode {
			return sdk.RequestPermissionResponse{Outcome: sdk.NewRequestPermissionOutcomeSelected("approve-accept-edits")}, nil
		}
		return sdk.RequestPermissionResponse{Outcome: sdk.NewRequestPermissionOutcomeSelected(optAllow)}, nil
	}
	id := h.newSession()
	h.prompt(id, "plan first")
	var switchReq *sdk.RequestPermissionRequest
	for i, p := range h.client.perms {
		if p.ToolCall.Kind != nil && *p.ToolCall.Kind == sdk.ToolKindSwitchMode {
			switchReq = &h.client.perms[i]
		}
	}
	if switchReq == nil || switchReq.ToolCall.ToolCallId != "p2" {
		t.Fatalf("no switch_mode request for the plan: %+v", h.client.perms)
	}
	var modes []string
	for _, u := range h.client.snapshot() {
		if u.CurrentModeUpdate != nil {
			modes = append(modes, string(u.CurrentModeUpdate.CurrentModeId))
		}
	}
	if strings.Join(modes, ",") != "plan,accept-edits" {
		t.Errorf("mode updates %v", modes)
	}
}

// A mode set by the client changes the next request's tools.
func TestModeChangesTools(t *testing.T) {
	m := scripted.New(scripted.Step{Text: "a"}, scripted.Step{Text: "b"}, scripted.Step{Text: "c"})
	h := start(t, m, sdk.ClientCapabilities{})
	id := h.newSession()
	h.prompt(id, "first")
	if _, err := h.conn.SetSessionMode(t.Context(), sdk.SetSessionModeRequest{SessionId: id, ModeId: "plan"}); err != nil {
		t.Fatal(err)
	}
	h.prompt(id, "second")
	resp, err := h.conn.SetSessionConfigOption(t.Context(), sdk.SetSessionConfigOptionRequest{ValueId: &sdk.SetSessionConfigOptionValueId{SessionId: id, ConfigId: "mode", Value: "yolo"}})
	if err != nil {
		t.Fatal(err)
	}
	if len(resp.ConfigOptions) != 3 || resp.ConfigOptions[0].Select.CurrentValue != "yolo" {
		t.Errorf("config options after the change: %+v", resp.ConfigOptions[0].Select)
	}
	h.prompt(id, "third")
	// Vibe mode is an option too: on, the next turn has the vibe tools.
	resp, err = h.conn.SetSessionConfigOption(t.Context(), sdk.SetSessionConfigOptionRequest{ValueId: &sdk.SetSessionConfigOptionValueId{SessionId: id, ConfigId: "vibe", Value: "on"}})
	if err != nil {
		t.Fatal(err)
	}
	if v := resp.ConfigOptions[2].Select; v.Id != "vibe" || v.CurrentValue != "on" {
		t.Errorf("the vibe option: %+v", v)
	}
	if _, err := h.conn.SetSessionConfigOption(t.Context(), sdk.SetSessionConfigOptionRequest{ValueId: &sdk.SetSessionConfigOptionValueId{SessionId: id, ConfigId: "vibe", Value: "maybe"}}); err == nil {
		t.Error("vibe took maybe")
	}
	h.prompt(id, "fourth")
	has := func(r llm.Request, name string) bool {
		for _, s := range r.Tools {
			if s.Name == name {
				return true
			}
		}
		return false
	}
	reqs := m.Requests()
	if !has(reqs[0], "write_file") || !has(reqs[0], "bash") {
		t.Error("the first request lacks the write and exec tools")
	}
	for _, name := range []string{"write_file", "edit_file", "apply_patch", "bash"} {
		if has(reqs[1], name) {
			t.Errorf("plan mode declared %s", name)
		}
	}
	if !has(reqs[2], "bash") {
		t.Error("yolo mode lacks bash")
	}
	if has(reqs[2], "vibe_spawn") || !has(reqs[3], "vibe_spawn") {
		t.Error("the vibe tools do not follow the vibe option")
	}
}

// The model option switches the model of the next turn; unknown values are refused.
func TestModelOption(t *testing.T) {
	m := scripted.New(scripted.Step{Text: "a"})
	h := start(t, m, sdk.ClientCapabilities{})
	id := h.newSession()
	if _, err := h.conn.SetSessionConfigOption(t.Context(), sdk.SetSessionConfigOptionRequest{ValueId: &sdk.SetSessionConfigOptionValueId{SessionId: id, ConfigId: "model", Value: "claude-haiku-4-5"}}); err != nil {
		t.Fatal(err)
	}
	if _, err := h.conn.SetSessionConfigOption(t.Context(), sdk.SetSessionConfigOptionRequest{ValueId: &sdk.SetSessionConfigOptionValueId{SessionId: id, ConfigId: "model", Value: "no-such-model"}}); err == nil {
		t.Error("an unknown model was accepted")
	}
	h.prompt(id, "hi")
	if got := m.Requests()[0].Model; got != "claude-haiku-4-5" {
		t.Errorf("the request used %s", got)
	}
}

// A permission request for an edit shows the diff it would make, and asking changes
// nothing on disk.
func TestPermissionShowsDiff(t *testing.T) {
	m := scripted.New(
		scripted.Step{Calls: []scripted.Call{{ID: "e1", Name: "edit_file", Input: `{"path":"a.txt","edits":[{"old":"red","new":"blue"}]}`}}},
		scripted.Step{Calls: []scripted.Call{{ID: "w1", Name: "write_file", Input: `{"path":"b.txt","content":"new file\n"}`}}},
		scripted.Step{Text: "ok"},
	)
	h := start(t, m, sdk.ClientCapabilities{})
	a := h.write("a.txt", "red\n")
	h.client.answer = func(sdk.RequestPermissionRequest) (sdk.RequestPermissionResponse, error) {
		return sdk.RequestPermissionResponse{Outcome: sdk.NewRequestPermissionOutcomeSelected(optReject)}, nil
	}
	id := h.newSession()
	h.prompt(id, "edit")
	if len(h.client.perms) != 2 {
		t.Fatalf("%d permission requests", len(h.client.perms))
	}
	d := h.client.perms[0].ToolCall.Content[0].Diff
	if d == nil || d.Path != a || *d.OldText != "red\n" || d.NewText != "blue\n" {
		t.Errorf("edit preview %+v", d)
	}
	w := h.client.perms[1].ToolCall.Content[0].Diff
	if w == nil || w.OldText != nil || w.NewText != "new file\n" {
		t.Errorf("write preview %+v", w)
	}
	if got, _ := os.ReadFile(a); string(got) != "red\n" {
		t.Errorf("the preview changed the file: %q", got)
	}
}

// The plan's request carries, after the plan, the exact rules approving grants: a
// broad one with its warning.
func TestPlanApprovalShowsItsRules(t *testing.T) {
	m := scripted.New(
		scripted.Step{Calls: []scripted.Call{{ID: "p1", Name: "enter_plan_mode", Input: `{}`}}},
		scripted.Step{Calls: []scripted.Call{{ID: "p2", Name: "exit_plan_mode", Input: `{"plan":"1. do it","allowed_prompts":["bash"]}`}}},
		scripted.Step{Text: "planned"},
	)
	h := start(t, m, sdk.ClientCapabilities{})
	h.client.answer = func(p sdk.RequestPermissionRequest) (sdk.RequestPermissionResponse, error) {
		if p.ToolCall.Kind != nil && *p.ToolCall.Kind == sdk.ToolKindSwitchMode {
			return sdk.RequestPermissionResponse{Outcome: sdk.NewRequestPermissionOutcomeSelected("keep-planning")}, nil
		}
		return sdk.RequestPermissionResponse{Outcome: sdk.NewRequestPermissionOutcomeSelected(optAllow)}, nil
	}
	id := h.newSession()
	h.prompt(id, "plan first")
	var texts []string
	for _, p := range h.client.perms {
		if p.ToolCall.Kind == nil || *p.ToolCall.Kind != sdk.ToolKindSwitchMode {
			continue
		}
		for _, c := range p.ToolCall.Content {
			if c.Content != nil && c.Content.Content.Text != nil {
				texts = append(texts, c.Content.Content.Text.Text)
			}
		}
	}
	if len(texts) != 2 || texts[0] != "1. do it" || !strings.Contains(texts[1], "  • bash\n    ⚠ allows every command without asking") {
		t.Errorf("the plan's request shows %q", texts)
	}
}
