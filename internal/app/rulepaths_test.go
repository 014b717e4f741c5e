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

// A rule's paths written as one string of patterns separated by commas, quoted or
// not, is read as those patterns (a comma inside braces stays in its pattern): each
// rule is given on the first read of a file one of them matches, and /memory and
// doctor show the patterns one by one.
func TestRuleCommaSeparatedPathsThroughTheApp(t *testing.T) {
	t.Setenv("CLAUDE_CONFIG_DIR", t.TempDir())
	t.Setenv("CODEX_HOME", t.TempDir())
	dir := project(t, "", map[string]string{
		".claude/rules/tsx-style.md": "---\npaths: \"**/*.tsx ,  **/*.vue\"\n---\n\n# Component rules TSX RULE\n",
		".claude/rules/db.md":        "---\npaths: server/**/*.go,cmd/db/main.go\n---\n\n# Database rules DB RULE\n",
		".claude/rules/web.md":       "---\npaths: web/*.{ts,tsx}\n---\nWEB RULE\n",
		".claude/rules/docs.md":      "---\npaths: \"docs/**, *.md,\"\n---\nDOCS RULE\n",
		"web/app.tsx":                "export {}\n",
		"cmd/db/main.go":             "package main\n",
	})
	p := scripted.New(
		scripted.Step{Calls: []scripted.Call{{ID: "r1", Name: "read_file", Input: `{"path":"web/app.tsx"}`}}},
		scripted.Step{Calls: []scripted.Call{{ID: "r2", Name: "read_file", Input: `{"path":"cmd/db/main.go"}`}}},
		scripted.Step{Text: "done"},
	)
	a, err := newStarted(Options{Cwd: dir, LLM: p, PermissionMode: "yolo"}, func(face.Event) {}, face.NoHuman{})
	if err != nil {
		t.Fatal(err)
	}
	defer a.Close()
	if end := a.Run(context.Background(), "look at the app", nil); end.StopReason != "end_turn" {
		t.Fatalf("end %+v", end)
	}
	reqs := p.Requests()
	last := func(i int) string { m := reqs[i].Messages; return m[len(m)-1].Content[0].Text }
	if r := last(1); !strings.Contains(r, "TSX RULE") || !strings.Contains(r, "WEB RULE") || strings.Contains(r, "DB RULE") {
		t.Errorf("the read of web/app.tsx gave:\n%s", r)
	}
	if r := last(2); !strings.Contains(r, "DB RULE") || strings.Contains(r, "TSX RULE") || strings.Contains(r, "DOCS RULE") {
		t.Errorf("the read of cmd/db/main.go gave:\n%s", r)
	}

	files, _ := a.MemoryFiles()
	var waiting []string
	for _, f := range files {
		if f.State == MemoryWaiting {
			waiting = append(waiting, filepath.Base(f.Path)+": "+strings.Join(f.Globs, " | "))
		}
	}
	if want := []string{"docs.md: docs/** | *.md"}; !reflect.DeepEqual(waiting, want) {
		t.Errorf("waiting rules %q, want %q", waiting, want)
	}

	rows, err := Doctor(dir)
	if err != nil {
		t.Fatal(err)
	}
	var b strings.Builder
	for _, r := range rows {
		b.WriteString(r.Value + "\n")
	}
	for _, want := range []string{
		filepath.Join(dir, ".claude", "rules", "tsx-style.md") + " (paths: **/*.tsx, **/*.vue)",
		filepath.Join(dir, ".claude", "rules", "db.md") + " (paths: server/**/*.go, cmd/db/main.go)",
		filepath.Join(dir, ".claude", "rules", "web.md") + " (paths: web/*.{ts,tsx})",
	} {
		if !strings.Contains(b.String(), want) {
			t.Errorf("doctor lacks %q:\n%s", want, b.String())
		}
	}
}
