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

// Spawns of one response number their workers in call order; with no models set,
// the person is told once that the fast workers run on the session's model.
func TestVibeSpawnsInCallOrder(t *testing.T) {
	dir := project(t, "", map[string]string{})
	const n = 5
	var calls []scripted.Call
	for i := 1; i <= n; i++ {
		calls = append(calls, scripted.Call{ID: fmt.Sprintf("s%d", i), Name: "vibe_spawn",
			Input: fmt.Sprintf(`{"brief":"brief %d","label":"label %d"}`, i, i)})
	}
	m := &vibeModel{
		main:   []scripted.Step{{Calls: calls}, {Text: "spawned"}},
		worker: func(string, llm.Request) scripted.Step { return scripted.Step{Text: "done"} },
	}
	var mu sync.Mutex
	var notices []string
	results := map[string]string{}
	a, err := newStarted(Options{Cwd: dir, LLM: m, Vibe: true}, func(e face.Event) {
		mu.Lock()
		defer mu.Unlock()
		switch e := e.(type) {
		case face.Notice:
			notices = append(notices, e.Text)
		case face.ToolFinished:
			results[e.CallID] = e.Result.Text
		}
	}, face.NoHuman{})
	if err != nil {
		t.Fatal(err)
	}
	defer a.Close()
	if end := a.Run(context.Background(), "spawn them", nil); end.Text != "spawned" {
		t.Fatalf("end %+v", end)
	}
	mu.Lock()
	defer mu.Unlock()
	for i := 1; i <= n; i++ {
		want := fmt.Sprintf("Started worker w%d [label %d]", i, i)
		if r := results[fmt.Sprintf("s%d", i)]; !strings.HasPrefix(r, want) || strings.Contains(r, "is not set") {
			t.Errorf("spawn %d: %q, want %q…", i, r, want)
		}
	}
	said := 0
	for _, n := range notices {
		if strings.Contains(n, "models.fast is not set") {
			said++
		}
	}
	if said != 1 {
		t.Errorf("the models.fast notice was said %d times: %q", said, notices)
	}
}
