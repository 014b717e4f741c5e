package app

import (
	"context"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/gantry-dev/gantry/internal/desktop/desktoptest"
	"github.com/gantry-dev/gantry/internal/face"
	"github.com/gantry-dev/gantry/internal/llm/scripted"
)

// The computer tool is declared where a display is reachable, and only there; a rule
// computer:screenshot allows screenshots alone.
func TestComputerDeclaredWithADisplay(t *testing.T) {
	dir := project(t, "", map[string]string{})
	t.Setenv("DISPLAY", "")
	if a := open(t, Options{Cwd: dir}); slices.Contains(a.ToolNames(), "computer") {
		t.Fatal("computer is declared with no display")
	}
	display := desktoptest.StartX(t, "800x600x24")
	t.Setenv("DISPLAY", display)
	m := scripted.New(
		scripted.Step{Calls: []scripted.Call{{ID: "s", Name: "computer", Input: `{"action":"screenshot","som":false}`}}},
		scripted.Step{Calls: []scripted.Call{{ID: "c", Name: "computer", Input: `{"action":"click","x":10,"y":10}`}}},
		scripted.Step{Text: "done"},
	)
	var mu sync.Mutex
	results := map[string]face.ToolFinished{}
	a, err := newStarted(Options{Cwd: dir, LLM: m, Allow: []string{"computer:screenshot"}}, func(e face.Event) {
		if f, ok := e.(face.ToolFinished); ok {
			mu.Lock()
			results[f.CallID] = f
			mu.Unlock()
		}
	}, face.NoHuman{})
	if err != nil {
		t.Fatal(err)
	}
	defer a.Close()
	if !slices.Contains(a.ToolNames(), "computer") {
		t.Fatalf("computer is not declared on %s: %v", display, a.ToolNames())
	}
	if end := a.Run(context.Background(), "look", nil); end.StopReason != "end_turn" {
		t.Fatalf("end %+v", end)
	}
	mu.Lock()
	defer mu.Unlock()
	if s := results["s"]; s.Result.IsError || len(s.Result.Images) != 1 || s.Result.Display.Note != "[screenshot 800x600, 0 elements]" {
		t.Errorf("the screenshot: error %v, %d images, note %q: %s", s.Result.IsError, len(s.Result.Images), s.Result.Display.Note, s.Result.Text)
	}
	if c := results["c"]; !c.Result.IsError || !strings.Contains(c.Result.Text, "needs permission") {
		t.Errorf("the click ran without permission: %s", c.Result.Text)
	}
}
