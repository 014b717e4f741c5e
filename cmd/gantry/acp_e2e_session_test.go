package main

// End-to-end tests of `gantry acp` (see acp_e2e_test.go): session/load, modes and commands.

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/gantry-dev/gantry/internal/llm/fakellm"
)

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
