package app

import (
	"context"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/gantry-dev/gantry/internal/face"
	"github.com/gantry-dev/gantry/internal/llm/scripted"
)

// Claude Code's rules: one without paths in the system prompt after CLAUDE.md, one
// with paths in the result of the first read of a matching file; /memory's list says
// which are in force and which wait.
func TestRulesAndMemoryFilesThroughTheApp(t *testing.T) {
	t.Setenv("CLAUDE_CONFIG_DIR", t.TempDir())
	t.Setenv("CODEX_HOME", t.TempDir())
	dir := project(t, "", map[string]string{
		"CLAUDE.md":               "PROJECT MEMORY\n",
		".claude/rules/style.md":  "ALWAYS RULE\n",
		".claude/rules/api/go.md": "---\npaths:\n  - \"svc/**/*.go\"\n---\nGO RULE\n",
		".claude/rules/sql.md":    "---\npaths: \"**/*.sql\"\n---\nSQL RULE\n",
		"svc/main.go":             "package svc\n",
		"svc/deep/x.txt":          "text\n",
	})
	p := scripted.New(
		scripted.Step{Calls: []scripted.Call{{ID: "r1", Name: "read_file", Input: `{"path":"svc/deep/x.txt"}`}}},
		scripted.Step{Calls: []scripted.Call{{ID: "r2", Name: "read_file", Input: `{"path":"svc/main.go"}`}}},
		scripted.Step{Calls: []scripted.Call{{ID: "r3", Name: "read_file", Input: `{"path":"svc/main.go"}`}}},
		scripted.Step{Text: "done"},
	)
	a, err := newStarted(Options{Cwd: dir, LLM: p, PermissionMode: "yolo"}, func(face.Event) {}, face.NoHuman{})
	if err != nil {
		t.Fatal(err)
	}
	defer a.Close()
	if end := a.Run(context.Background(), "look at svc", nil); end.StopReason != "end_turn" {
		t.Fatalf("end %+v", end)
	}
	reqs := p.Requests()
	system := reqs[0].System
	if i, j := strings.Index(system, "PROJECT MEMORY"), strings.Index(system, "ALWAYS RULE"); i < 0 || j < i ||
		strings.Contains(system, "GO RULE") || strings.Contains(system, "SQL RULE") {
		t.Errorf("system prompt's memory:\n%s", system)
	}
	last := func(i int) string { m := reqs[i].Messages; return m[len(m)-1].Content[0].Text }
	goRule := filepath.Join(dir, ".claude", "rules", "api", "go.md")
	if r := last(1); strings.Contains(r, "GO RULE") {
		t.Errorf("a file outside the rule's paths gave it:\n%s", r)
	}
	if r := last(2); !strings.Contains(r, "Contents of "+goRule+":\n\nGO RULE") || strings.Contains(r, "paths:") {
		t.Errorf("the matching read's result:\n%s", r)
	}
	if r := last(3); strings.Contains(r, "GO RULE") {
		t.Errorf("given twice:\n%s", r)
	}

	files, truncated := a.MemoryFiles()
	var got []string
	for _, f := range files {
		rel, _ := filepath.Rel(dir, f.Path)
		got = append(got, rel+" | "+f.State+" | "+strings.Join(f.Globs, ","))
		if f.Size <= 0 {
			t.Errorf("%s: size %d", f.Path, f.Size)
		}
	}
	want := []string{
		"CLAUDE.md | " + MemoryAtStart + " | ",
		".claude/rules/style.md | " + MemoryAtStart + " | ",
		".claude/rules/api/go.md | " + MemoryAdded + " | ",
		".claude/rules/sql.md | " + MemoryWaiting + " | **/*.sql",
	}
	if !reflect.DeepEqual(got, want) || truncated {
		t.Errorf("memory files (truncated %v):\n%s\nwant\n%s", truncated, strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}
