package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gantry-dev/gantry/internal/llm/fakellm"
)

// Two editor sessions in two folders, one gantry acp process: each folder's Claude
// settings give its own env, and each session's commands see their own folder's
// variables only — nothing of one session is set in the process the other shares.
func TestACPSessionsKeepTheirOwnEnvironment(t *testing.T) {
	t.Parallel()
	echo := `{"command":"echo \"zone=${GANTRY_TEST_ZONE-unset} only=${GANTRY_TEST_ONLY_A-unset}\""}`
	srv, environ := acpFakeModel(t,
		fakellm.Turn{Parts: []fakellm.Part{fakellm.ToolCall("a1", "bash", echo)}},
		fakellm.Turn{Parts: []fakellm.Part{fakellm.Text("A done.")}},
		fakellm.Turn{Parts: []fakellm.Part{fakellm.ToolCall("b1", "bash", echo)}},
		fakellm.Turn{Parts: []fakellm.Part{fakellm.Text("B done.")}},
		fakellm.Turn{Parts: []fakellm.Part{fakellm.ToolCall("a2", "bash", echo)}},
		fakellm.Turn{Parts: []fakellm.Part{fakellm.Text("A again.")}},
	)
	a, b := t.TempDir(), t.TempDir()
	settings := map[string]string{
		a: `{"env": {"GANTRY_TEST_ZONE": "a", "GANTRY_TEST_ONLY_A": "yes"}}`,
		b: `{"env": {"GANTRY_TEST_ZONE": "b"}}`,
	}
	for dir, s := range settings {
		if err := os.MkdirAll(filepath.Join(dir, ".claude"), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, ".claude", "settings.json"), []byte(s), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	run := acpDrive(t, environ, acpScenario{
		Agent: acpAgent{Cwd: a, Args: []string{"acp", "--permission-mode", "yolo", "--trust"}},
		Steps: []acpStep{
			{"op": "new", "cwd": a}, {"op": "prompt", "text": "in a"},
			{"op": "new", "cwd": b}, {"op": "prompt", "text": "in b"},
			{"op": "prompt", "text": "in a again", "session": 0},
		},
	})
	for i, s := range run.Steps {
		if s.Error != nil {
			t.Fatalf("step %d (%s): %+v", i, s.Op, *s.Error)
		}
	}
	reqs := srv.Requests()
	if len(reqs) != 6 {
		t.Fatalf("%d model requests, want 6", len(reqs))
	}
	for i, want := range map[int]string{1: "zone=a only=yes", 3: "zone=b only=unset", 5: "zone=a only=yes"} {
		if body := acpBody(reqs[i]); !strings.Contains(body, want) {
			t.Errorf("request %d: the command's output should say %q:\n%s", i, want, acpTail(body, 1500))
		}
	}
	if v, ok := os.LookupEnv("GANTRY_TEST_ZONE"); ok {
		t.Errorf("the test process has GANTRY_TEST_ZONE=%s", v)
	}
}
