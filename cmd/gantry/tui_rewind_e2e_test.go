package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gantry-dev/gantry/internal/llm/fakellm"
)

// In tmux: a bash printing a line every 100 ms shows its tail live; !echo shows its
// output and the next model request carries it; esc esc opens the rewind list and the
// files come back; /export writes the transcript.
func TestTUIRewindBangLiveExport(t *testing.T) {
	srv := fakellm.New(
		fakellm.Turn{Parts: []fakellm.Part{fakellm.ToolCall("b1", "bash", `{"command":"for i in $(seq 1 40); do echo tick-$i; sleep 0.1; done; echo changed > note.txt"}`)}},
		fakellm.Turn{Parts: []fakellm.Part{fakellm.Text("Ticked and changed the note.")}},
		fakellm.Turn{Parts: []fakellm.Part{fakellm.Text("You listed the person's words.")}},
	)
	defer srv.Close()
	dir := tuiProjectDir(t)
	if err := os.WriteFile(filepath.Join(dir, "note.txt"), []byte("original\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	tt := startTUI(t, 100, 30, dir, tuiEnv(t, srv), "--permission-mode", "yolo")
	tt.waitFor("Ask gantry, or /help")
	tt.typeLine("tick and change")
	// The tail while it runs: a middle tick on screen before the command's end.
	tt.waitUntil("the live tail", func(s string) bool { return strings.Contains(s, "tick-1") && strings.Contains(s, "⏵ ") })
	tt.waitFor("Ticked and changed the note.")
	if b, _ := os.ReadFile(filepath.Join(dir, "note.txt")); string(b) != "changed\n" {
		t.Fatalf("note.txt: %q", b)
	}
	tt.typeLine("!echo the-persons-words")
	tt.waitFor("the-persons-words")
	tt.typeLine("what did I list?")
	tt.waitFor("You listed the person's words.")
	reqs := srv.Requests()
	last, _ := json.Marshal(reqs[len(reqs)-1].Body)
	if !strings.Contains(string(last), "bash-input") || !strings.Contains(string(last), "the-persons-words") {
		t.Errorf("the model's request lacks the !command: %s", last)
	}
	// esc esc: the list, the first prompt, files and conversation, the diff, y.
	tt.keys("Escape")
	tt.keys("Escape")
	tt.waitFor("Rewind to before which prompt?")
	tt.keys("Up", "Enter") // the first prompt (the list starts at the last)
	tt.waitFor("Files and conversation")
	tt.keys("Enter")
	tt.waitFor("+original")
	tt.keys("y")
	tt.waitFor("restored the files as they were before prompt 1")
	if b, _ := os.ReadFile(filepath.Join(dir, "note.txt")); string(b) != "original\n" {
		t.Errorf("note.txt after the rewind: %q", b)
	}
	out := filepath.Join(dir, "out.md")
	tt.typeLine("/export " + out)
	tt.waitFor("wrote the transcript to")
	if md, err := os.ReadFile(out); err != nil || !strings.Contains(string(md), "tick and change") {
		t.Errorf("the export: %v", err)
	}
}
