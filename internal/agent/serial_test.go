package agent

import (
	"context"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/gantry-dev/gantry/internal/llm/scripted"
	"github.com/gantry-dev/gantry/internal/permission"
	"github.com/gantry-dev/gantry/internal/tool"
)

// A Serial read tool's calls run one at a time and in the response's order, where
// other read calls run together.
func TestSerialReadCallsRunInOrder(t *testing.T) {
	var mu sync.Mutex
	var started []string
	running, peak := 0, 0
	serial := tool.New(tool.Def[echoArgs]{
		Name: "serial", Description: "serial", Level: tool.LevelRead, Kind: tool.KindOther, Serial: true,
		Run: func(ctx context.Context, _ tool.Env, a echoArgs) tool.Result {
			mu.Lock()
			started = append(started, a.Text)
			running++
			peak = max(peak, running)
			mu.Unlock()
			defer func() { mu.Lock(); running--; mu.Unlock() }()
			select { // long enough for calls run together to overlap
			case <-time.After(time.Duration(a.Sleep) * time.Millisecond):
			case <-ctx.Done():
			}
			return tool.Result{Text: "serial:" + a.Text}
		},
	})
	p := scripted.New(scripted.Step{Calls: []scripted.Call{
		{ID: "1", Name: "serial", Input: `{"text":"1","sleep_ms":60}`},
		{ID: "2", Name: "serial", Input: `{"text":"2","sleep_ms":30}`},
		{ID: "3", Name: "serial", Input: `{"text":"3"}`},
	}}, scripted.Step{Text: "done"})
	a, _, _ := newAgent(t, p, permission.ModeYolo)
	a.Tools.Add(serial)
	if end := a.Run(context.Background(), "go"); end.Text != "done" {
		t.Fatalf("end %+v", end)
	}
	if peak != 1 || !slices.Equal(started, []string{"1", "2", "3"}) {
		t.Errorf("serial calls: peak %d, started in the order %v", peak, started)
	}
	for i, r := range results(t, p, 1) {
		if want := "serial:" + string(rune('1'+i)); r.Text != want {
			t.Errorf("result %d: %q, want %q", i, r.Text, want)
		}
	}
}
