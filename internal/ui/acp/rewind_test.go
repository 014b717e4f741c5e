package acp

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	sdk "github.com/coder/acp-go-sdk"

	"github.com/gantry-dev/gantry/internal/llm/scripted"
)

// /rewind lists the checkpoints, and /rewind 1 brings the files and the conversation
// back to before the first prompt.
func TestRewindCommand(t *testing.T) {
	m := scripted.New(
		scripted.Step{Calls: []scripted.Call{{ID: "b1", Name: "bash", Input: `{"command":"echo changed > note.txt"}`}}},
		scripted.Step{Text: "Changed."},
	)
	h := start(t, m, sdk.ClientCapabilities{})
	h.write("note.txt", "original\n")
	id := h.newSession()
	if _, err := h.conn.SetSessionMode(t.Context(), sdk.SetSessionModeRequest{SessionId: id, ModeId: "yolo"}); err != nil {
		t.Fatal(err)
	}
	h.prompt(id, "change the note")
	h.prompt(id, "/rewind")
	if got := agentText(h.client.snapshot()); !regexp.MustCompile(`1\. change the note \(\d\d:\d\d\) — 1 file\(s\) changed after it`).MatchString(got) {
		t.Fatalf("/rewind:\n%s", got)
	}
	h.prompt(id, "/rewind 1")
	got := agentText(h.client.snapshot())
	if !strings.Contains(got, "Restored 1 file(s) as they were before prompt 1") || !strings.Contains(got, "the conversation is back to before prompt 1") {
		t.Errorf("/rewind 1:\n%s", got)
	}
	if n := strings.Count(strings.ToLower(got), "conversation is back to before prompt 1"); n != 1 {
		t.Errorf("/rewind 1 says the conversation is back %d times, want once:\n%s", n, got)
	}
	if b, _ := os.ReadFile(filepath.Join(h.dir, "note.txt")); string(b) != "original\n" {
		t.Errorf("note.txt: %q", b)
	}
}
