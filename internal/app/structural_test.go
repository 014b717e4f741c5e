package app

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gantry-dev/gantry/internal/face"
	"github.com/gantry-dev/gantry/internal/llm"
	"github.com/gantry-dev/gantry/internal/llm/scripted"
	"github.com/gantry-dev/gantry/internal/syntax"
)

// A session stages a structural rewrite and ends; the resumed session resolves it, and
// the rewrite is written whole.
func TestStagedRewriteSurvivesResume(t *testing.T) {
	if !syntax.Available {
		t.Skip("a build without cgo has no structural tools")
	}
	dir := project(t, "", map[string]string{
		"a.py": "def f(x):\n    print(x)\n",
		"b.py": "print(1)\n",
	})
	p := scripted.New(
		scripted.Step{Calls: []scripted.Call{{Name: "ast_edit", Input: `{"pattern":"print($A)","rewrite":"log($A)"}`}}},
		scripted.Step{Text: "staged"},
	)
	a, err := newStarted(Options{Cwd: dir, LLM: p, PermissionMode: "yolo"}, func(face.Event) {}, face.NoHuman{})
	if err != nil {
		t.Fatal(err)
	}
	id := a.sess.ID()
	if end := a.Run(context.Background(), "use log", nil); end.StopReason != "end_turn" {
		t.Fatalf("end %+v", end)
	}
	if got := lastResult(p.Requests()[1].Messages); !strings.Contains(got, `edit_id "edit_1"`) {
		t.Fatalf("the model did not get the staged change: %s", got)
	}
	a.Close()
	if b, _ := os.ReadFile(filepath.Join(dir, "b.py")); string(b) != "print(1)\n" {
		t.Fatal("ast_edit wrote")
	}

	p2 := scripted.New(
		scripted.Step{Calls: []scripted.Call{{Name: "resolve", Input: `{"edit_id":"edit_1","action":"accept"}`}}},
		scripted.Step{Text: "written"},
	)
	b, err := newStarted(Options{Cwd: dir, LLM: p2, Resume: id, PermissionMode: "yolo"}, func(face.Event) {}, face.NoHuman{})
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	if end := b.Run(context.Background(), "accept it", nil); end.StopReason != "end_turn" {
		t.Fatalf("end %+v", end)
	}
	if last := lastResult(p2.Requests()[1].Messages); !strings.Contains(last, "Wrote edit_1: 2 replacement(s) in 2 file(s)") {
		t.Fatalf("resolve after resume: %s", last)
	}
	if a, _ := os.ReadFile(filepath.Join(dir, "a.py")); string(a) != "def f(x):\n    log(x)\n" {
		t.Fatalf("a.py: %q", a)
	}
}

// lastResult is the text of the last tool result of a conversation.
func lastResult(msgs []llm.Message) string {
	for i := len(msgs) - 1; i >= 0; i-- {
		for _, b := range msgs[i].Content {
			if b.Type == llm.BlockToolResult {
				return b.Text
			}
		}
	}
	return ""
}
