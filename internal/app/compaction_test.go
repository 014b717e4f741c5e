package app

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"testing"

	"github.com/gantry-dev/gantry/internal/face"
	"github.com/gantry-dev/gantry/internal/llm"
	"github.com/gantry-dev/gantry/internal/llm/scripted"
)

// sixty writes a todo item, then calls read_file for 60 turns with a context that grows
// 100 tokens a message, then answers; a request without tools gets a summary.
type sixty struct {
	mu       sync.Mutex
	turns    int
	requests []llm.Request
}

func (s *sixty) Name() string { return "sixty" }

func (s *sixty) Stream(ctx context.Context, req llm.Request, emit func(llm.Delta)) (llm.Response, error) {
	s.mu.Lock()
	s.requests = append(s.requests, req)
	var step scripted.Step
	in := int64(100 * len(req.Messages))
	switch {
	case len(req.Tools) == 0:
		step = scripted.Step{Text: fmt.Sprintf("SUMMARY after %d turns: reading notes.txt line by line", s.turns), Usage: llm.Usage{InputTokens: 2000}}
	case s.turns == 0:
		s.turns++
		step = scripted.Step{Calls: []scripted.Call{{Name: "todo_write", Input: `{"todos":[{"id":"1","content":"read the notes sixty times","status":"in_progress"}]}`}}, Usage: llm.Usage{InputTokens: in}}
	case s.turns <= 60:
		s.turns++
		step = scripted.Step{Calls: []scripted.Call{{Name: "read_file", Input: fmt.Sprintf(`{"path":"notes.txt","start":1,"end":1,"numbered":%v}`, s.turns%2 == 0)}}, Usage: llm.Usage{InputTokens: in}}
	default:
		step = scripted.Step{Text: "finished", Usage: llm.Usage{InputTokens: in}}
	}
	s.mu.Unlock()
	return scripted.New(step).Stream(ctx, req, emit)
}

func TestCompactionInALongSessionAndResume(t *testing.T) {
	dir := project(t, "compact:\n  window: 4000\n  threshold: 0.8\nmaxTurns: 200\n", map[string]string{
		"AGENTS.md": "Always write British English.\n", "notes.txt": "a note\n",
	})
	p := &sixty{}
	a, err := newStarted(Options{Cwd: dir, LLM: p, PermissionMode: "yolo"}, func(face.Event) {}, face.NoHuman{})
	if err != nil {
		t.Fatal(err)
	}
	end := a.Run(context.Background(), "read the notes sixty times", nil)
	if end.StopReason != "end_turn" {
		t.Fatalf("end %+v", end)
	}
	id := a.SessionID()
	summaries := 0
	for i, r := range p.requests {
		if len(r.Tools) > 0 || i+1 >= len(p.requests) {
			continue
		}
		summaries++
		first := p.requests[i+1].Messages[0].Text()
		for _, want := range []string{"SUMMARY after", "read the notes sixty times", "Always write British English."} {
			if !strings.Contains(first, want) {
				t.Fatalf("the request after compaction lacks %q:\n%s", want, first)
			}
		}
	}
	if summaries == 0 {
		t.Fatal("no automatic compaction in 60 turns")
	}
	raw, err := a.sess.RawMessages()
	if err != nil || len(raw) < 120 {
		t.Fatalf("the store lost turns: %d messages, %v", len(raw), err)
	}
	a.Close()

	// Resume: the context starts from the last compaction, the todo list comes back.
	p2 := scripted.New(scripted.Step{Text: "resumed"})
	var mu sync.Mutex
	var events []face.Event
	b, err := newStarted(Options{Cwd: dir, LLM: p2, Resume: id}, func(e face.Event) { mu.Lock(); events = append(events, e); mu.Unlock() }, face.NoHuman{})
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	if end := b.agent.Run(context.Background(), "go on"); end.StopReason != "end_turn" {
		t.Fatalf("resume: %+v", end)
	}
	req := p2.Requests()[0]
	if !strings.Contains(req.Messages[0].Text(), "SUMMARY after") || len(req.Messages) > 40 {
		t.Fatalf("the resumed context does not start from the compaction: %d messages, first %.80q", len(req.Messages), req.Messages[0].Text())
	}
	restored := false
	for _, e := range events {
		if l, ok := e.(face.TodoList); ok && len(l.Items) == 1 && l.Items[0].Content == "read the notes sixty times" {
			restored = true
		}
	}
	if !restored {
		t.Fatal("the todo list was not restored on resume")
	}
}
