package agent

import (
	"context"
	"encoding/json"
	"strings"
	"sync"
	"testing"

	"github.com/gantry-dev/gantry/internal/face"
	"github.com/gantry-dev/gantry/internal/llm"
	"github.com/gantry-dev/gantry/internal/llm/scripted"
	"github.com/gantry-dev/gantry/internal/permission"
)

// fakeHooks answers each event with a scripted result and records what it was sent.
type fakeHooks struct {
	mu     sync.Mutex
	result map[string][]HookResult // per event, consumed in order; the last repeats
	seen   []map[string]any
}

func (f *fakeHooks) Has(event string) bool { _, ok := f.result[event]; return ok }

func (f *fakeHooks) Run(_ context.Context, event, toolName string, fields map[string]any) HookResult {
	f.mu.Lock()
	defer f.mu.Unlock()
	fields["event"], fields["tool"] = event, toolName
	f.seen = append(f.seen, fields)
	rs := f.result[event]
	r := rs[0]
	if len(rs) > 1 {
		f.result[event] = rs[1:]
	}
	return r
}

func TestPromptHooks(t *testing.T) {
	p := scripted.New(scripted.Step{Text: "ok"})
	a, ev, _ := newAgent(t, p, permission.ModeYolo)
	a.Hooks = &fakeHooks{result: map[string][]HookResult{HookUserPromptSubmit: {{Context: "branch: main", Warnings: []string{"lint hook exited 1"}}}}}
	a.Run(context.Background(), "go")
	msgs := p.Requests()[0].Messages
	if len(msgs) != 1 || !strings.Contains(msgs[0].Content[1].Text, "branch: main") {
		t.Fatalf("prompt context not added: %+v", msgs)
	}
	found := false
	for _, e := range ev.ev {
		if n, ok := e.(face.Notice); ok && strings.Contains(n.Text, "lint hook exited 1") {
			found = true
		}
	}
	if !found {
		t.Fatal("the hook warning was not shown")
	}

	p2 := scripted.New(scripted.Step{Text: "never"})
	b, _, _ := newAgent(t, p2, permission.ModeYolo)
	b.Hooks = &fakeHooks{result: map[string][]HookResult{HookUserPromptSubmit: {{Block: true, Reason: "no secrets in prompts"}}}}
	end := b.Run(context.Background(), "my password is x")
	if end.StopReason != "blocked" || !strings.Contains(end.Err.Error(), "no secrets") || len(p2.Requests()) != 0 {
		t.Fatalf("blocked prompt reached the model: %+v", end)
	}
}

func TestPreToolUseHooks(t *testing.T) {
	p := scripted.New(
		scripted.Step{Calls: []scripted.Call{{ID: "1", Name: "run", Input: `{"text":"rm -rf /"}`}, {ID: "2", Name: "run", Input: `{"text":"ls"}`}, {ID: "3", Name: "run", Input: `{"text":"make"}`}}},
		scripted.Step{Text: "done"},
	)
	a, _, _ := newAgent(t, p, permission.ModeDefault) // exec tools would be asked, and nobody is here
	h := &fakeHooks{result: map[string][]HookResult{HookPreToolUse: {
		{Block: true, Reason: "destructive command"},
		{UpdatedInput: json.RawMessage(`{"text":"ls -la"}`), Allow: true},
		{},
	}}}
	a.Hooks = h
	a.Run(context.Background(), "go")
	rs := results(t, p, 1)
	if !rs[0].IsError || !strings.Contains(rs[0].Text, "blocked by a PreToolUse hook: destructive command") {
		t.Errorf("blocked call: %+v", rs[0])
	}
	if rs[1].IsError || rs[1].Text != "run:ls -la" {
		t.Errorf("rewritten and pre-approved call: %+v", rs[1])
	}
	if !rs[2].IsError || !strings.Contains(rs[2].Text, "nobody is here") {
		t.Errorf("a call the hook did not approve must still ask: %+v", rs[2])
	}
	if h.seen[0]["tool_name"] != "run" || h.seen[0]["tool_input"].(map[string]any)["text"] != "rm -rf /" || h.seen[0]["tool_use_id"] != "1" {
		t.Errorf("hook input: %+v", h.seen[0])
	}
}

func TestHookApprovalDoesNotBeatDenyRules(t *testing.T) {
	p := scripted.New(scripted.Step{Calls: []scripted.Call{{Name: "run", Input: `{"text":"x"}`}}}, scripted.Step{Text: "done"})
	gate, _ := permission.NewEngine(permission.ModeDefault, nil, []string{"run"})
	a, _, _ := newAgent(t, p, permission.ModeDefault)
	a.Gate = gate
	a.Hooks = &fakeHooks{result: map[string][]HookResult{HookPreToolUse: {{Allow: true}}}}
	a.Run(context.Background(), "go")
	if r := results(t, p, 1)[0]; !r.IsError || !strings.Contains(r.Text, "deny rule") {
		t.Fatalf("deny rule bypassed: %+v", r)
	}
}

func TestPostToolUseAndStopHooks(t *testing.T) {
	p := scripted.New(
		scripted.Step{Calls: []scripted.Call{{Name: "echo", Input: `{"text":"x"}`}}},
		scripted.Step{Text: "finished early"},
		scripted.Step{Text: "really finished"},
	)
	a, _, _ := newAgent(t, p, permission.ModeYolo)
	h := &fakeHooks{result: map[string][]HookResult{
		HookPostToolUse: {{Block: true, Reason: "run the tests too", Context: "3 files changed"}},
		HookStop:        {{Block: true, Reason: "the tests were not run"}, {}},
	}}
	a.Hooks = h
	end := a.Run(context.Background(), "go")
	if r := results(t, p, 1)[0]; !strings.Contains(r.Text, "[PostToolUse hook: run the tests too]") || !strings.Contains(r.Text, "3 files changed") {
		t.Errorf("post hook feedback: %q", r.Text)
	}
	reqs := p.Requests()
	if len(reqs) != 3 || end.Text != "really finished" {
		t.Fatalf("the Stop hook did not make the loop go on once: %d requests, %+v", len(reqs), end)
	}
	last := reqs[2].Messages[len(reqs[2].Messages)-1]
	if last.Role != llm.RoleUser || !strings.Contains(last.Text(), "the tests were not run") {
		t.Fatalf("stop reason not given to the model: %+v", last)
	}
	var active []any
	for _, s := range h.seen {
		if s["event"] == HookStop {
			active = append(active, s["stop_hook_active"])
		}
	}
	if len(active) != 2 || active[0] != false || active[1] != true {
		t.Fatalf("stop_hook_active = %v", active)
	}
}

func TestNotificationHookBeforeAsking(t *testing.T) {
	p := scripted.New(scripted.Step{Calls: []scripted.Call{{Name: "run", Input: `{"text":"make"}`}}}, scripted.Step{Text: "done"})
	a, _, _ := newAgent(t, p, permission.ModeDefault)
	a.Asker = answerer{ans: face.AllowOnce}
	h := &fakeHooks{result: map[string][]HookResult{HookNotification: {{}}}}
	a.Hooks = h
	a.Run(context.Background(), "go")
	if len(h.seen) != 1 || h.seen[0]["notification_type"] != "permission_prompt" || !strings.Contains(h.seen[0]["message"].(string), "run") {
		t.Fatalf("notification hook: %+v", h.seen)
	}
}
