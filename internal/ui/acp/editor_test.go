package acp

import (
	"context"
	"os"
	"strings"
	"testing"

	sdk "github.com/coder/acp-go-sdk"

	"github.com/gantry-dev/gantry/internal/llm/scripted"
	"github.com/gantry-dev/gantry/internal/procgroup/proctest"
)

// With fs capabilities the file tools read the editor's unsaved buffer and write
// through the editor; the disk is left to the editor.
func TestClientFileSystem(t *testing.T) {
	m := scripted.New(
		scripted.Step{Calls: []scripted.Call{{ID: "r1", Name: "read_file", Input: `{"path":"main.go"}`}}},
		scripted.Step{Calls: []scripted.Call{{ID: "e1", Name: "edit_file", Input: `{"path":"main.go","edits":[{"old":"unsaved","new":"edited"}]}`}}},
		scripted.Step{Text: "done"},
	)
	h := start(t, m, sdk.ClientCapabilities{Fs: sdk.FileSystemCapabilities{ReadTextFile: true, WriteTextFile: true}})
	path := h.write("main.go", "package main // on disk\n")
	h.client.buffers[path] = "package main // unsaved\n"
	id := h.newSession()
	h.prompt(id, "edit")
	if got := lastResult(t, m, "r1"); !strings.Contains(got, "unsaved") {
		t.Errorf("read_file did not see the buffer: %q", got)
	}
	if got := h.client.writes[path]; got != "package main // edited\n" {
		t.Errorf("written through the editor: %q", got)
	}
	if disk, _ := os.ReadFile(path); string(disk) != "package main // on disk\n" {
		t.Errorf("the disk was written: %q", disk)
	}
	d := finalUpdate(h.client.snapshot(), "e1").Content[0].Diff
	if d == nil || *d.OldText != "package main // unsaved\n" || d.NewText != "package main // edited\n" {
		t.Errorf("diff %+v", d)
	}
}

// With terminal capability bash runs in the client's terminal, embedded in the call.
func TestClientTerminal(t *testing.T) {
	m := scripted.New(
		bashStep("b1", "echo in-terminal; exit 3"),
		scripted.Step{Text: "done"},
	)
	h := start(t, m, sdk.ClientCapabilities{Terminal: true})
	id := h.newSession()
	h.prompt(id, "run")
	if len(h.client.created) != 1 || h.client.created[0].Command != "bash" || h.client.created[0].Cwd == nil || *h.client.created[0].Cwd != h.dir {
		t.Fatalf("terminals created: %+v", h.client.created)
	}
	got := lastResult(t, m, "b1")
	if !strings.Contains(got, "in-terminal") || !strings.Contains(got, "[exit code: exit status 3]") {
		t.Errorf("the model read %q", got)
	}
	embedded := false
	for _, u := range h.client.snapshot() {
		if u.ToolCallUpdate != nil && u.ToolCallUpdate.ToolCallId == "b1" {
			for _, c := range u.ToolCallUpdate.Content {
				embedded = embedded || c.Terminal != nil
			}
		}
	}
	if !embedded {
		t.Error("the terminal was not embedded in the tool call")
	}
	if f := finalUpdate(h.client.snapshot(), "b1"); *f.Status != sdk.ToolCallStatusFailed {
		t.Errorf("a non-zero exit should fail the call: %s", *f.Status)
	}
	if len(h.client.terms) != 0 {
		t.Errorf("terminals not released: %d", len(h.client.terms))
	}
}

// A cancel while a terminal command runs kills it through terminal/kill.
func TestClientTerminalCancel(t *testing.T) {
	marker := "acp-term-marker"
	m := scripted.New(bashStep("b1", "sleep 30; echo "+marker))
	h := start(t, m, sdk.ClientCapabilities{Terminal: true})
	id := h.newSession()
	done := h.promptAsync(id, "run")
	h.client.waitFor(t, "terminal", func(u sdk.SessionUpdate) bool {
		return u.ToolCallUpdate != nil && len(u.ToolCallUpdate.Content) > 0 && u.ToolCallUpdate.Content[0].Terminal != nil
	})
	if err := h.conn.Cancel(context.Background(), sdk.CancelNotification{SessionId: id}); err != nil {
		t.Fatal(err)
	}
	if r := waitResponse(t, done); r.StopReason != sdk.StopReasonCancelled {
		t.Fatalf("stop reason %q", r.StopReason)
	}
	if proctest.Running(marker) {
		t.Error("the terminal's command outlived the cancel")
	}
}
