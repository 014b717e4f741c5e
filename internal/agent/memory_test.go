package agent

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gantry-dev/gantry/internal/config"
	"github.com/gantry-dev/gantry/internal/face"
	"github.com/gantry-dev/gantry/internal/llm/scripted"
	"github.com/gantry-dev/gantry/internal/permission"
	"github.com/gantry-dev/gantry/internal/tools/fs"
	"github.com/gantry-dev/gantry/internal/tools/search"
)

func writeFile(t *testing.T, path, content string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}

// A nested AGENTS.md reaches the model in the result of the first call that reads or
// writes a file in its folder, once, and the person reads a notice of it; a tool that
// declares no files (echo) adds nothing, and the face's result is the tool's own.
func TestNestedMemoryOnFirstTouch(t *testing.T) {
	p := scripted.New(
		scripted.Step{Calls: []scripted.Call{
			{ID: "e", Name: "echo", Input: `{"text":"a/f.txt"}`},
			{ID: "r1", Name: "read_file", Input: `{"path":"a/f.txt"}`},
		}},
		scripted.Step{Calls: []scripted.Call{
			{ID: "r2", Name: "read_file", Input: `{"path":"a/f.txt"}`},
			{ID: "g", Name: "grep", Input: `{"pattern":"x","path":"a"}`},
			{ID: "w", Name: "write_file", Input: `{"path":"b/c/new.txt","content":"new\n"}`},
		}},
		scripted.Step{Text: "done"},
		scripted.Step{Text: "SUMMARY"}, // the compaction's
		scripted.Step{Text: "after"},
	)
	a, ev, _ := newAgent(t, p, permission.ModeYolo)
	cwd := a.Env.Cwd
	writeFile(t, filepath.Join(cwd, "a", "AGENTS.md"), "A RULES\n")
	writeFile(t, filepath.Join(cwd, "a", "f.txt"), "hello\n")
	writeFile(t, filepath.Join(cwd, "b", "CLAUDE.md"), "B RULES\n")
	writeFile(t, filepath.Join(cwd, "b", "c", "AGENTS.md"), "C RULES\n")
	for _, tl := range append(fs.Tools(fs.Options{}), search.Tools(search.Options{})...) {
		a.Tools.Add(tl)
	}
	a.Nested = config.NewNested(cwd, config.MemoryFiles{})
	a.Config.Memory = "START MEMORY"

	if end := a.Run(context.Background(), "go"); end.StopReason != "end_turn" {
		t.Fatalf("end %+v", end)
	}
	first := results(t, p, 1)
	if strings.Contains(first[0].Text, "RULES") {
		t.Errorf("echo declares no files, yet: %q", first[0].Text)
	}
	aFile := filepath.Join(cwd, "a", "AGENTS.md")
	if r := first[1].Text; !strings.HasPrefix(r, "hello") || !strings.Contains(r, "<system-reminder>\n") ||
		!strings.Contains(r, "Contents of "+aFile+":\n\nA RULES\n</system-reminder>") {
		t.Errorf("read_file's result:\n%s", r)
	}
	second := results(t, p, 2)
	if strings.Contains(second[0].Text, "RULES") || strings.Contains(second[1].Text, "RULES") {
		t.Errorf("a/AGENTS.md given twice: %q / %q", second[0].Text, second[1].Text)
	}
	if r := second[2].Text; !strings.Contains(r, "B RULES") || !strings.Contains(r, "C RULES") || strings.Index(r, "B RULES") > strings.Index(r, "C RULES") {
		t.Errorf("write_file's result:\n%s", r)
	}
	var notices []string
	for _, e := range ev.ev {
		switch e := e.(type) {
		case face.Notice:
			if !e.Info {
				t.Errorf("notice not informational: %+v", e)
			}
			notices = append(notices, e.Text)
		case face.ToolFinished:
			if strings.Contains(e.Result.Text, "system-reminder") {
				t.Errorf("the face's result carries the memory: %q", e.Result.Text)
			}
		}
	}
	want := []string{"added a/AGENTS.md to the memory", "added b/CLAUDE.md, b/c/AGENTS.md to the memory"}
	if strings.Join(notices, "|") != strings.Join(want, "|") {
		t.Errorf("notices %q\nwant %q", notices, want)
	}

	// A compaction keeps the nested files in the memory it gives again.
	if err := a.Compact(context.Background(), ""); err != nil {
		t.Fatal(err)
	}
	a.Run(context.Background(), "next")
	reqs := p.Requests()
	text := reqs[len(reqs)-1].Messages[0].Text()
	for _, w := range []string{"SUMMARY", "START MEMORY", "A RULES", "B RULES", "C RULES"} {
		if !strings.Contains(text, w) {
			t.Errorf("the compacted context lacks %q:\n%s", w, text)
		}
	}
}
