package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gantry-dev/gantry/internal/llm/fakellm"
)

// After a rewind the session rewound stays the folder's live one: --continue goes on
// from what the rewind left (the model is not told of the edit it took away),
// `gantry rewind --list` and `gantry sessions` put it first, and the branch that
// keeps the old conversation is only reached by its id. The rewind's flags come after
// its number, as the refusal's advice reads.
func TestContinueAfterRewindGoesOnInTheLiveSession(t *testing.T) {
	for _, how := range [][]string{{"2", "--force"}, {"--conversation-only", "2"}} {
		t.Run(strings.Join(how, " "), func(t *testing.T) {
			srv := fakellm.New(
				fakellm.Turn{Parts: []fakellm.Part{fakellm.ToolCall("w1", "bash", `{"command":"echo one > a.txt"}`)}},
				fakellm.Turn{Parts: []fakellm.Part{fakellm.Text("Wrote a.txt.")}},
				fakellm.Turn{Parts: []fakellm.Part{fakellm.ToolCall("w2", "bash", `{"command":"echo removed-edit > a.txt"}`)}},
				fakellm.Turn{Parts: []fakellm.Part{fakellm.Text("Changed a.txt to removed-edit.")}},
				fakellm.Turn{Parts: []fakellm.Part{fakellm.Text("Going on.")}},
			)
			defer srv.Close()
			dir := t.TempDir()
			e := env(t, "ANTHROPIC_BASE_URL="+srv.URL(), "ANTHROPIC_API_KEY=k")
			r := gantry(t, dir, e, "-p", "write a.txt", "--permission-mode", "yolo", "--output-format", "json")
			var first struct {
				SessionID string `json:"session_id"`
			}
			if r.code != 0 || json.Unmarshal([]byte(r.stdout), &first) != nil || first.SessionID == "" {
				t.Fatalf("first prompt: exit %d\n%s%s", r.code, r.stdout, r.stderr)
			}
			live := first.SessionID
			if r := gantry(t, dir, e, "-p", "-c", "change a.txt", "--permission-mode", "yolo"); r.code != 0 {
				t.Fatalf("second prompt: exit %d\n%s%s", r.code, r.stdout, r.stderr)
			}
			r = gantry(t, dir, e, append([]string{"rewind"}, how...)...)
			if r.code != 0 || !strings.Contains(r.stdout, "The conversation is back to before prompt 2") {
				t.Fatalf("rewind %s: exit %d\n%s%s", how, r.code, r.stdout, r.stderr)
			}
			_, branch, ok := strings.Cut(r.stdout, "kept in session ")
			branch, _, _ = strings.Cut(branch, " ")
			if !ok || branch == "" || branch == live {
				t.Fatalf("the rewind names no branch apart from %s:\n%s", live, r.stdout)
			}

			r = gantry(t, dir, e, "rewind", "--list")
			if r.code != 0 || !strings.Contains(r.stdout, "Checkpoints of session "+live) {
				t.Fatalf("rewind --list after the rewind does not list the live session %s: exit %d\n%s%s", live, r.code, r.stdout, r.stderr)
			}
			r = gantry(t, dir, e, "sessions", "--json")
			var list []struct {
				ID       string `json:"id"`
				BranchOf string `json:"branch_of"`
			}
			if r.code != 0 || json.Unmarshal([]byte(r.stdout), &list) != nil || len(list) != 2 {
				t.Fatalf("sessions --json: exit %d\n%s%s", r.code, r.stdout, r.stderr)
			}
			if list[0].ID != live || list[1].ID != branch || list[1].BranchOf != live || list[0].BranchOf != "" {
				t.Errorf("sessions, newest first: %+v; want %s first, then its branch %s", list, live, branch)
			}

			if r := gantry(t, dir, e, "-p", "-c", "what now?"); r.code != 0 {
				t.Fatalf("continue after the rewind: exit %d\n%s%s", r.code, r.stdout, r.stderr)
			}
			reqs := srv.Requests()
			if len(reqs) != 5 {
				t.Fatalf("%d requests, want 5", len(reqs))
			}
			body := string(reqs[4].Raw)
			for _, want := range []string{"write a.txt", "Wrote a.txt.", "what now?"} {
				if !strings.Contains(body, want) {
					t.Errorf("the continued request lacks %q", want)
				}
			}
			for _, gone := range []string{"change a.txt", "removed-edit"} {
				if strings.Contains(body, gone) {
					t.Errorf("the continued request still has %q, which the rewind took away:\n%s", gone, body)
				}
			}
			r = gantry(t, dir, e, "sessions", "--json")
			if json.Unmarshal([]byte(r.stdout), &list) != nil || len(list) != 2 || list[0].ID != live {
				t.Errorf("after going on, the sessions are %+v; want %s first", list, live)
			}
			want := "one\n"
			if how[0] == "--conversation-only" {
				want = "removed-edit\n"
			}
			if b, _ := os.ReadFile(filepath.Join(dir, "a.txt")); string(b) != want {
				t.Errorf("a.txt = %q, want %q", b, want)
			}
		})
	}
}
