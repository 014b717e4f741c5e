package agent

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"testing"

	"github.com/gantry-dev/gantry/internal/face"
	"github.com/gantry-dev/gantry/internal/llm"
	"github.com/gantry-dev/gantry/internal/llm/scripted"
	"github.com/gantry-dev/gantry/internal/permission"
)

// growing is a model whose context grows by 100 tokens a turn: it calls echo for 60
// turns, then answers; a request without tools is a summary request.
type growing struct {
	mu       sync.Mutex
	turns    int
	requests []llm.Request
}

func (g *growing) Name() string { return "growing" }

func (g *growing) Stream(ctx context.Context, req llm.Request, emit func(llm.Delta)) (llm.Response, error) {
	g.mu.Lock()
	g.requests = append(g.requests, req)
	var step scripted.Step
	if len(req.Tools) == 0 {
		step = scripted.Step{Text: "SUMMARY: echoing numbers, reached " + fmt.Sprint(g.turns), Usage: llm.Usage{InputTokens: 1500, OutputTokens: 50}}
	} else {
		g.turns++
		in := int64(100 * len(req.Messages))
		if g.turns > 60 {
			step = scripted.Step{Text: "all sixty done", Usage: llm.Usage{InputTokens: in}}
		} else {
			step = scripted.Step{Calls: []scripted.Call{{Name: "echo", Input: fmt.Sprintf(`{"text":"%d"}`, g.turns)}}, Usage: llm.Usage{InputTokens: in}}
		}
	}
	g.mu.Unlock()
	return scripted.New(step).Stream(ctx, req, emit)
}

func TestAutomaticCompaction(t *testing.T) {
	g := &growing{}
	a, _, _ := newAgent(t, g, permission.ModeYolo)
	rec := &memRecorder{}
	a.Store = rec
	a.Config.MaxTurns = 200
	a.Config.ContextWindow = 3000
	a.Config.CompactThreshold = 0.8
	a.Config.Memory = "Contents of AGENTS.md: always answer in English."
	a.Config.TodoText = func() string { return "◐ 1. echo sixty numbers" }
	end := a.Run(context.Background(), "echo sixty numbers")
	if end.StopReason != "end_turn" || end.Text != "all sixty done" {
		t.Fatalf("end %+v", end)
	}
	var summaries, after int
	for i, r := range g.requests {
		if len(r.Tools) == 0 {
			summaries++
			next := g.requests[i+1]
			first := next.Messages[0].Text()
			for _, want := range []string{"SUMMARY: echoing numbers", "◐ 1. echo sixty numbers", "always answer in English"} {
				if !strings.Contains(first, want) {
					t.Fatalf("the request after the compaction lacks %q:\n%s", want, first)
				}
			}
			if len(next.Messages) > 4 {
				t.Fatalf("the context was not replaced: %d messages", len(next.Messages))
			}
			after = i + 1
		}
	}
	if summaries == 0 {
		t.Fatal("the conversation was never compacted")
	}
	if got := strings.Count(strings.Join(rec.calls, " "), "compaction"); got != summaries {
		t.Fatalf("%d compaction marks for %d compactions", got, summaries)
	}
	// The history keeps alternating and every call has its result.
	last := g.requests[after]
	for i := 1; i < len(last.Messages); i++ {
		if last.Messages[i].Role == last.Messages[i-1].Role {
			t.Fatalf("two %s messages in a row after compaction", last.Messages[i].Role)
		}
	}
}

func TestCompactToolAndPreCompactHook(t *testing.T) {
	g := &growing{}
	a, _, _ := newAgent(t, g, permission.ModeYolo)
	a.Config.MaxTurns = 3
	h := &fakeHooks{result: map[string][]HookResult{HookPreCompact: {{}}}}
	a.Hooks = h
	a.RequestCompaction("keep the numbers")
	a.Run(context.Background(), "go") // the first request has only the prompt: nothing to summarise
	a.RequestCompaction("keep the numbers")
	a.Run(context.Background(), "again")
	var summary *llm.Request
	for i := range g.requests {
		if len(g.requests[i].Tools) == 0 {
			summary = &g.requests[i]
		}
	}
	if summary == nil {
		t.Fatal("no summary request")
	}
	if last := summary.Messages[len(summary.Messages)-1].Text(); !strings.Contains(last, "keep the numbers") {
		t.Fatalf("the focus did not reach the summary request: %s", last)
	}
	if len(h.seen) == 0 || h.seen[len(h.seen)-1]["trigger"] != "manual" {
		t.Fatalf("PreCompact hook: %+v", h.seen)
	}
}

// A PreCompact hook that blocks (exit 2) does not stop the compaction, as in Claude
// Code: its reason is a notice for the person.
func TestPreCompactBlockStillCompacts(t *testing.T) {
	g := &growing{}
	a, ev, _ := newAgent(t, g, permission.ModeYolo)
	a.Config.MaxTurns = 3
	a.Hooks = &fakeHooks{result: map[string][]HookResult{HookPreCompact: {{Block: true, Reason: "backing up the transcript failed"}}}}
	a.Run(context.Background(), "go")
	if err := a.Compact(context.Background(), ""); err != nil {
		t.Fatal(err)
	}
	var notices []string
	ev.mu.Lock()
	for _, e := range ev.ev {
		if n, ok := e.(face.Notice); ok {
			notices = append(notices, n.Text)
		}
	}
	ev.mu.Unlock()
	if len(notices) != 2 || notices[0] != "PreCompact hook: backing up the transcript failed" || !strings.Contains(notices[1], "compacted the conversation (manual)") {
		t.Fatalf("notices %q", notices)
	}
}
