package task_test

import (
	"context"
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gantry-dev/gantry/internal/agent"
	"github.com/gantry-dev/gantry/internal/llm"
	"github.com/gantry-dev/gantry/internal/llm/scripted"
	"github.com/gantry-dev/gantry/internal/permission"
	"github.com/gantry-dev/gantry/internal/session"
	"github.com/gantry-dev/gantry/internal/tool"
	"github.com/gantry-dev/gantry/internal/tools/task"
)

// TestScriptedSessionAndResume drives task through the agent loop with a scripted
// model and the real session store, then resumes the session from the store: the
// board, its rules and its ids go on where they were.
func TestScriptedSessionAndResume(t *testing.T) {
	path := filepath.Join(t.TempDir(), "sessions.db")
	st, err := session.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	s, err := st.Create(session.Meta{Cwd: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	board := task.NewBoard(s)
	p := scripted.New(
		step(`{"action":"create","title":"Design the schema"}`),
		step(`{"action":"create","title":"Write the API","blocked_by":["t1"]}`),
		step(`{"action":"update","task_id":"t2","status":"in_progress"}`),
		step(`{"action":"update","task_id":1,"status":"completed"}`),
		step(`{"action":"list","ready":true}`),
		step(`{"action":"update","task_id":"t1","status":"pending"}`),
		scripted.Step{Text: "done"},
	)
	run(t, p, board, s)
	r := toolResults(p.Requests())
	if len(r) != 6 {
		t.Fatalf("%d results", len(r))
	}
	checks := []struct {
		isError bool
		want    string
	}{
		{false, "Created t1: Design the schema."},
		{false, "Created t2: Write the API. It is pending and blocked by t1 (pending)."},
		{true, "t2 cannot be started while its blockers are not completed: t1 (Design the schema, pending)."},
		{false, "Ready to start now: t2 (Write the API)."},
		{false, "t2 [pending] Write the API — blocked by t1 (completed)"},
		{true, "t1 is completed and cannot go back to pending"},
	}
	for i, c := range checks {
		if r[i].IsError != c.isError || !strings.Contains(r[i].Text, c.want) {
			t.Errorf("result %d = %+v, want error=%v containing %q", i, r[i], c.isError, c.want)
		}
	}
	events, err := s.Events(task.EventKind)
	if err != nil || len(events) != 3 {
		t.Fatalf("%d task_board events stored (%v), want one per change", len(events), err)
	}
	if err := st.Close(); err != nil {
		t.Fatal(err)
	}

	// Resume from the store in a new process.
	st, err = session.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	if s, err = st.Get(s.ID()); err != nil {
		t.Fatal(err)
	}
	if events, err = s.Events(task.EventKind); err != nil {
		t.Fatal(err)
	}
	payloads := make([]json.RawMessage, len(events))
	for i, e := range events {
		payloads[i] = e.Payload
	}
	resumed := task.NewBoard(s)
	resumed.Restore(task.FromEvents(payloads))
	p = scripted.New(
		step(`{"action":"get","task_id":"t1"}`),
		step(`{"action":"create","title":"Document it","blocked_by":["t2"]}`),
		scripted.Step{Text: "done"},
	)
	run(t, p, resumed, s)
	r = toolResults(p.Requests())
	if len(r) != 2 || !strings.Contains(r[0].Text, "Status: completed") || !strings.Contains(r[1].Text, "Created t3: Document it.") {
		t.Fatalf("after resume: %+v", r)
	}
	if ts := resumed.Tasks(); len(ts) != 3 || ts[1].Status != task.Pending || ts[0].Status != task.Completed {
		t.Fatalf("board after resume %+v", ts)
	}
}

func step(input string) scripted.Step {
	return scripted.Step{Calls: []scripted.Call{{Name: "task", Input: input}}}
}

// run plays one turn with task declared.
func run(t *testing.T, p llm.Provider, b *task.Board, s *session.Session) {
	t.Helper()
	gate, err := permission.NewEngine(permission.ModeDefault, nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	reg := tool.NewRegistry()
	reg.Add(task.Tool(b))
	a := &agent.Agent{Provider: p, Tools: reg, Gate: gate, Store: s, Env: tool.Env{Cwd: t.TempDir()},
		MaxLevel: permission.ModeDefault.MaxLevel, Config: agent.Config{Model: "m", MaxOutput: 30000}}
	if end := a.Run(context.Background(), "plan the work"); end.Err != nil {
		t.Fatalf("turn ended with %v", end.Err)
	}
}

// toolResults are the tool results the model was sent, in order.
func toolResults(reqs []llm.Request) []llm.Block {
	if len(reqs) == 0 {
		return nil
	}
	var out []llm.Block
	for _, m := range reqs[len(reqs)-1].Messages {
		for _, b := range m.Content {
			if b.Type == llm.BlockToolResult {
				out = append(out, b)
			}
		}
	}
	return out
}
