package app

import (
	"context"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/gantry-dev/gantry/internal/config"
	"github.com/gantry-dev/gantry/internal/face"
	"github.com/gantry-dev/gantry/internal/llm/scripted"
)

// The session's memory: the files of the start in the system prompt with their
// precedence, a nested AGENTS.md in the result of the first read_file in its folder,
// once — also after a resume.
func TestNestedMemoryThroughTheApp(t *testing.T) {
	dir := project(t, "", map[string]string{
		"AGENTS.md": "ROOT RULES\n", "CLAUDE.local.md": "MY OWN RULES\n",
		"svc/AGENTS.md": "SVC RULES\n", "svc/main.go": "package svc\n",
	})
	p := scripted.New(
		scripted.Step{Calls: []scripted.Call{{ID: "r1", Name: "read_file", Input: `{"path":"svc/main.go"}`}}},
		scripted.Step{Calls: []scripted.Call{{ID: "r2", Name: "read_file", Input: `{"path":"svc/main.go"}`}}},
		scripted.Step{Text: "done"},
	)
	var mu sync.Mutex
	var notices []string
	sink := func(e face.Event) {
		if n, ok := e.(face.Notice); ok && n.Info {
			mu.Lock()
			notices = append(notices, n.Text)
			mu.Unlock()
		}
	}
	a, err := newStarted(Options{Cwd: dir, LLM: p, PermissionMode: "yolo"}, sink, face.NoHuman{})
	if err != nil {
		t.Fatal(err)
	}
	if end := a.Run(context.Background(), "look at svc", nil); end.StopReason != "end_turn" {
		t.Fatalf("end %+v", end)
	}
	reqs := p.Requests()
	system := reqs[0].System
	if !strings.Contains(system, config.MemoryPrecedence) || strings.Count(system, "the user's instructions in the conversation win") != 1 {
		t.Errorf("the precedence is not stated once:\n%s", system)
	}
	if !strings.Contains(system, "ROOT RULES") || !strings.Contains(system, "MY OWN RULES") || strings.Index(system, "ROOT RULES") > strings.Index(system, "MY OWN RULES") ||
		strings.Contains(system, "SVC RULES") {
		t.Errorf("system prompt's memory:\n%s", system)
	}
	last := func(i int) string { m := reqs[i].Messages; return m[len(m)-1].Content[0].Text }
	if r := last(1); !strings.Contains(r, "Contents of "+filepath.Join(dir, "svc", "AGENTS.md")+":\n\nSVC RULES") {
		t.Errorf("first read_file's result:\n%s", r)
	}
	if r := last(2); strings.Contains(r, "SVC RULES") {
		t.Errorf("given twice:\n%s", r)
	}
	if len(notices) != 1 || notices[0] != "added svc/AGENTS.md to the memory" {
		t.Errorf("notices %q", notices)
	}
	id := a.SessionID()
	a.Close()

	p2 := scripted.New(
		scripted.Step{Calls: []scripted.Call{{ID: "r3", Name: "read_file", Input: `{"path":"svc/main.go"}`}}},
		scripted.Step{Text: "done again"},
	)
	b, err := newStarted(Options{Cwd: dir, LLM: p2, PermissionMode: "yolo", Resume: id}, func(face.Event) {}, face.NoHuman{})
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	b.Run(context.Background(), "again", nil)
	reqs = p2.Requests()
	if r := reqs[1].Messages[len(reqs[1].Messages)-1].Content[0].Text; strings.Contains(r, "SVC RULES") {
		t.Errorf("given again after the resume:\n%s", r)
	}
	if !strings.Contains(b.agent.Nested.Text(), "SVC RULES") {
		t.Error("the resumed session's nested memory (for a compaction) lacks svc/AGENTS.md")
	}
}
