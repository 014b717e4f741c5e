package main

// End-to-end tests of `gantry acp` (see acp_e2e_test.go): a whole turn with permissions, with and without the editor.

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/gantry-dev/gantry/internal/llm/fakellm"
)

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
		if locs := acpLocations(acpAsStarted(calls[id])); !slices.Equal(locs, []string{path}) {
			t.Errorf("%s: locations %v, want [%s]", id, locs, path)
		}
	}
	if started := acpAsStarted(calls["bash1"]); acpDig(started, "rawInput", "command") != "echo allowed-once" {
		t.Errorf("bash1: rawInput %v", started["rawInput"])
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
