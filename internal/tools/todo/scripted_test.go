package todo_test

import (
	"context"
	"encoding/json"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/gantry-dev/gantry/internal/agent"
	"github.com/gantry-dev/gantry/internal/face"
	"github.com/gantry-dev/gantry/internal/llm"
	"github.com/gantry-dev/gantry/internal/llm/scripted"
	"github.com/gantry-dev/gantry/internal/permission"
	"github.com/gantry-dev/gantry/internal/session"
	"github.com/gantry-dev/gantry/internal/tool"
	"github.com/gantry-dev/gantry/internal/tools/todo"
)

// TestScriptedSessionAndResume drives todo_write and todo_read through the agent loop
// with a scripted model and the real session store, then resumes the session from the
// store and reads the list back.
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
	var mu sync.Mutex
	var shown [][]face.TodoItem
	sink := func(e face.Event) {
		if l, ok := e.(face.TodoList); ok {
			mu.Lock()
			shown = append(shown, l.Items)
			mu.Unlock()
		}
	}
	list := todo.NewList(s, sink)
	p := scripted.New(
		step("todo_write", `{"todos":[{"id":"1","content":"Read the code","status":"in_progress"},{"id":"2","content":"Fix the bug"}]}`),
		step("todo_write", `{"merge":true,"todos":[{"id":"2","status":"in_progress"}]}`),
		step("todo_write", `{"merge":true,"todos":[{"id":"1","status":"completed"},{"id":"2","status":"in_progress"}]}`),
		step("todo_read", `{}`),
		scripted.Step{Text: "done"},
	)
	run(t, p, list, s, sink)

	results := toolResults(p.Requests())
	if len(results) != 4 {
		t.Fatalf("%d tool results: %+v", len(results), results)
	}
	if results[0].IsError || !strings.Contains(results[0].Text, "[>] 1: Read the code (in_progress)") {
		t.Errorf("first write: %+v", results[0])
	}
	if !results[1].IsError || !strings.Contains(results[1].Text, "at most one item may be in_progress") {
		t.Errorf("the second in_progress was not refused: %+v", results[1])
	}
	if results[3].IsError || !strings.Contains(results[3].Text, "[x] 1: Read the code (completed)\n[>] 2: Fix the bug (in_progress)") {
		t.Errorf("read: %+v", results[3])
	}
	mu.Lock()
	if len(shown) != 2 {
		t.Errorf("the face was shown %d lists, want 2 (the refused write shows none)", len(shown))
	}
	mu.Unlock()
	events, err := s.Events(todo.EventKind)
	if err != nil || len(events) != 2 {
		t.Fatalf("%d todo_list events stored (%v)", len(events), err)
	}
	want := list.Items()
	if err := st.Close(); err != nil {
		t.Fatal(err)
	}

	// Resume: a new process opens the store and restores the list from its events.
	st, err = session.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	s, err = st.Get(s.ID())
	if err != nil {
		t.Fatal(err)
	}
	events, err = s.Events(todo.EventKind)
	if err != nil {
		t.Fatal(err)
	}
	payloads := make([]json.RawMessage, len(events))
	for i, e := range events {
		payloads[i] = e.Payload
	}
	resumed := todo.NewList(s, nil)
	resumed.Restore(todo.FromEvents(payloads))
	if got := resumed.Items(); len(got) != len(want) || got[0] != want[0] || got[1] != want[1] {
		t.Fatalf("resumed %+v, want %+v", got, want)
	}
	p = scripted.New(step("todo_read", `{}`), scripted.Step{Text: "done"})
	run(t, p, resumed, s, nil)
	if r := toolResults(p.Requests()); len(r) != 1 || !strings.Contains(r[0].Text, "[>] 2: Fix the bug (in_progress)") {
		t.Fatalf("todo_read after resume: %+v", r)
	}
}

func step(name, input string) scripted.Step {
	return scripted.Step{Calls: []scripted.Call{{Name: name, Input: input}}}
}

// run plays one turn with the todo tools declared.
func run(t *testing.T, p llm.Provider, list *todo.List, s *session.Session, sink face.Sink) {
	t.Helper()
	gate, err := permission.NewEngine(permission.ModeDefault, nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	reg := tool.NewRegistry()
	for _, tl := range todo.Tools(list) {
		reg.Add(tl)
	}
	a := &agent.Agent{Provider: p, Tools: reg, Gate: gate, Store: s, Sink: sink, Env: tool.Env{Cwd: t.TempDir()},
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
