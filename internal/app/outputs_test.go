package app

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/gantry-dev/gantry/internal/contain"
	"github.com/gantry-dev/gantry/internal/face"
	"github.com/gantry-dev/gantry/internal/tool"
)

var savedNote = regexp.MustCompile(`The whole output is saved in (\S+): read a range with read_file`)

// A person's !command printing 458 KB is cut to a command's preview for the model and
// saved whole in the session's outputs folder, beside the store; the model's read_file
// reads a range of it in default mode though a rule denies every absolute read, and a
// command in the sandbox can read it too.
func TestCutOutputsLiveInTheSessionsFolder(t *testing.T) {
	dir := project(t, "", map[string]string{})
	a := open(t, Options{Cwd: dir, PermissionMode: "default", Deny: []string{"read_file:/.*"}})
	r := a.Shell(context.Background(), "seq 1 80000")
	m := savedNote.FindStringSubmatch(r.Text)
	if m == nil || utf8.RuneCountInString(r.Text) > tool.ShellPreview.Chars {
		t.Fatalf("!command gives:\n%s", r.Text)
	}
	want := filepath.Join(os.Getenv("GANTRY_DATA_DIR"), "outputs", a.sess.ID(), "shell_1.txt")
	if m[1] != want {
		t.Fatalf("saved in %s, not in %s", m[1], want)
	}
	in, _ := json.Marshal(map[string]any{"path": want, "start": 77, "end": 78})
	rr := a.agent.Call(context.Background(), "r1", "read_file", in)
	if rr.IsError || !strings.Contains(rr.Text, "77\n78") || strings.Contains(rr.Text, "79") {
		t.Errorf("read_file of the saved output: %+v", rr)
	}
	other, _ := json.Marshal(map[string]any{"path": filepath.Join(dir, ".gantry", "config.yaml")})
	if rr := a.agent.Call(context.Background(), "r2", "read_file", other); !rr.IsError {
		t.Errorf("the deny rule does not hold elsewhere, so the test proves nothing: %+v", rr)
	}
	if b, _ := contain.SandboxStatus(); b != contain.BackendBubblewrap {
		t.Logf("no bubblewrap here: the sandbox's reading is not tried")
		return
	}
	on := true
	sb := open(t, Options{Cwd: dir, PermissionMode: "yolo", Sandbox: &on})
	cmd, _ := json.Marshal(map[string]any{"command": "sed -n 40000p " + want})
	if rr := sb.agent.Call(context.Background(), "s1", "bash", cmd); rr.IsError || strings.TrimSpace(rr.Text) != "40000" {
		t.Errorf("a sandboxed command reads the saved output: %+v", rr)
	}
}

// A tool server's outputs are in its temporary folder, removed at Close with the
// rest of its session's data.
func TestToolServerOutputsGoWithIt(t *testing.T) {
	dir := project(t, "", map[string]string{})
	a, err := newStarted(Options{Cwd: dir, ToolServer: true, PermissionMode: "yolo"}, func(face.Event) {}, face.NoHuman{})
	if err != nil {
		t.Fatal(err)
	}
	r := a.CallTool(context.Background(), "x1", "bash", json.RawMessage(`{"command":"seq 1 80000"}`))
	m := savedNote.FindStringSubmatch(r.Text)
	if m == nil || !strings.HasPrefix(m[1], a.scratch+"/outputs/") {
		a.Close()
		t.Fatalf("the tool server's bash gives:\n%s", r.Text)
	}
	if err := a.Close(); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(m[1]); !os.IsNotExist(err) {
		t.Errorf("the saved output outlives the tool server's session: %v", err)
	}
}
