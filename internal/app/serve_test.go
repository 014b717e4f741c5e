package app

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gantry-dev/gantry/internal/face"
	"github.com/gantry-dev/gantry/internal/session"
)

// A ToolServer session needs no model, serves the project's tools and not the
// conversation's, and leaves nothing behind: no stored session, no folder.
func TestToolServerSession(t *testing.T) {
	dir := project(t, "", map[string]string{"notes.txt": "hello\n"})
	t.Setenv("ANTHROPIC_API_KEY", "") // no provider at all
	a, err := newStarted(Options{Cwd: dir, ToolServer: true}, func(face.Event) {}, face.NoHuman{})
	if err != nil {
		t.Fatal(err)
	}
	scratch := a.scratch
	if fi, err := os.Stat(scratch); err != nil || !fi.IsDir() {
		t.Fatalf("the session's folder: %v", err)
	}
	served := map[string]bool{}
	for _, tl := range a.Served() {
		served[tl.Name()] = true
	}
	if !served["read_file"] || !served["bash"] || served["agent"] || served["todo_write"] || served["exit_plan_mode"] {
		t.Errorf("served: %v", served)
	}
	r := a.CallTool(context.Background(), "x1", "read_file", json.RawMessage(`{"path":"notes.txt"}`))
	if r.IsError || !strings.Contains(r.Text, "hello") {
		t.Errorf("read_file: %+v", r)
	}
	if r := a.CallTool(context.Background(), "x2", "todo_write", json.RawMessage(`{"todos":[]}`)); !r.IsError || !strings.Contains(r.Text, "not served") {
		t.Errorf("a conversation's tool: %+v", r)
	}
	if r := a.CallTool(context.Background(), "x3", "nope", nil); !r.IsError || !strings.Contains(r.Text, "no tool named") {
		t.Errorf("an unknown tool: %+v", r)
	}
	if err := a.Close(); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(scratch); !os.IsNotExist(err) {
		t.Errorf("the session's folder is left: %v", err)
	}
	if r := a.CallTool(context.Background(), "x4", "read_file", json.RawMessage(`{"path":"notes.txt"}`)); !r.IsError {
		t.Errorf("a call after Close ran: %+v", r)
	}
	// Nothing in the user's store.
	if st, err := session.Open(StorePath(Options{})); err == nil {
		list, _ := st.List(0)
		st.Close()
		if len(list) != 0 {
			t.Errorf("the store lists %d sessions", len(list))
		}
	}
	if _, err := os.Stat(filepath.Join(os.Getenv("GANTRY_DATA_DIR"), "transcripts")); err == nil {
		t.Error("a transcript folder was made in the user's data folder")
	}
}
