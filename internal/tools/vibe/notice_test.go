package vibe

import (
	"context"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/gantry-dev/gantry/internal/tool"
)

// A tier with no model of its own says so to the person once a session, not with
// every worker nor in the spawn's result; spawns run one at a time, in call order.
func TestNoticeOncePerTier(t *testing.T) {
	var mu sync.Mutex
	var warned []string
	var fakes []*fake
	b := New(Options{
		Make: func(s Spec) (Made, error) {
			f := &fake{release: make(chan string)}
			mu.Lock()
			fakes = append(fakes, f)
			mu.Unlock()
			m := Made{Worker: f, Model: "session-model"}
			if s.Tier == Fast {
				m.Notice = "models.fast is not set in the config, so fast workers run on the session's model, session-model"
			}
			return m, nil
		},
		Warn: func(text string) { mu.Lock(); warned = append(warned, text); mu.Unlock() },
	})
	defer func() {
		if err := b.Close(context.Background()); err != nil {
			t.Error(err)
		}
	}()
	for i, in := range []string{
		`{"brief":"a","label":"one"}`,
		`{"brief":"b","label":"two","tier":"fast"}`,
		`{"brief":"c","label":"three","tier":"good"}`,
		`{"brief":"d","label":"four"}`,
	} {
		r := run(t, b, "vibe_spawn", in)
		if r.IsError || strings.Contains(r.Text, "is not set") || !strings.Contains(r.Text, "Started worker w"+string(rune('1'+i))) {
			t.Errorf("spawn %d: %q", i+1, r.Text)
		}
	}
	mu.Lock()
	defer mu.Unlock()
	if len(warned) != 1 || !strings.HasPrefix(warned[0], "models.fast is not set") {
		t.Errorf("the notices: %q", warned)
	}
	tools := b.Tools()
	spawn := tools[slices.IndexFunc(tools, func(tl tool.Tool) bool { return tl.Name() == "vibe_spawn" })]
	if !spawn.Info().Serial {
		t.Error("vibe_spawn's calls may run together, and number their workers in the order they happen to start")
	}
}
