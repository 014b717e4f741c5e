package agent

import (
	"context"
	"fmt"

	"github.com/gantry-dev/gantry/internal/compact"
	"github.com/gantry-dev/gantry/internal/face"
	"github.com/gantry-dev/gantry/internal/llm"
)

// HookPreCompact is raised before the conversation is compacted.
const HookPreCompact = "PreCompact"

// RequestCompaction asks the loop to compact the conversation before its next model
// request (the compact tool); focus says what the summary should dwell on.
func (a *Agent) RequestCompaction(focus string) {
	a.mu.Lock()
	a.compactFocus, a.compactAsked = focus, true
	a.mu.Unlock()
}

// maybeCompact compacts the conversation when it was asked to, or when the last
// request filled the context window past the threshold.
func (a *Agent) maybeCompact(ctx context.Context) {
	a.mu.Lock()
	asked, focus := a.compactAsked, a.compactFocus
	a.compactAsked, a.compactFocus = false, ""
	due := compact.Due(a.lastContext, a.Config.ContextWindow, a.Config.CompactThreshold)
	a.mu.Unlock()
	if !asked && !due {
		return
	}
	trigger := "auto"
	if asked {
		trigger = "manual"
	}
	if err := a.compact(ctx, trigger, focus); err != nil && ctx.Err() == nil {
		a.emit(face.Notice{Text: fmt.Sprintf("the conversation could not be compacted (%v); it goes on as it was", err)})
	}
}

// compact replaces the model's context with a summary of it, followed by the turn in
// progress (the prompt, or the last calls and their results), and marks the session
// store, which keeps every message. The PreCompact hooks run first.
func (a *Agent) compact(ctx context.Context, trigger, focus string) error {
	// As in Claude Code, a PreCompact hook cannot stop the compaction: what it says
	// when it blocks (exit 2's stderr) is for the person.
	if r, ran := a.hook(ctx, HookPreCompact, trigger, map[string]any{"trigger": trigger, "custom_instructions": focus}); ran && r.Block && r.Reason != "" && ctx.Err() == nil {
		a.emit(face.Notice{Text: "PreCompact hook: " + r.Reason})
	}
	history := a.History()
	head, tail := splitTail(history)
	if len(head) == 0 {
		return nil // nothing before the turn in progress
	}
	in := compact.Input{History: head, Memory: a.memoryText(), Focus: focus}
	if a.Config.TodoText != nil {
		in.Todo = a.Config.TodoText()
	}
	if a.Config.TasksText != nil {
		in.Tasks = a.Config.TasksText()
	}
	if err := a.durable(); err != nil {
		return err // the turn stops at its next barrier
	}
	summarized, _, usage, err := compact.Summarize(ctx, a.Provider, a.Config.Model, in)
	a.AddUsage(usage, a.price(usage))
	if err != nil {
		return err
	}
	if len(tail) > 0 && tail[0].Role == llm.RoleAssistant && len(summarized) > 0 && summarized[len(summarized)-1].Role == llm.RoleAssistant {
		summarized = summarized[:len(summarized)-1] // the turn's own assistant message follows
	}
	next := append(summarized, tail...)
	a.mu.Lock()
	a.history = next
	a.lastContext = 0
	a.mu.Unlock()
	if a.Store != nil {
		a.stored(a.Store.MarkCompaction(next))
	}
	a.emit(face.Notice{Text: fmt.Sprintf("compacted the conversation (%s): %d messages became a summary", trigger, len(head)), Info: true})
	return nil
}

// splitTail splits the history before the turn in progress: a trailing prompt, or
// the last assistant message with calls and the results that follow it.
func splitTail(h []llm.Message) (head, tail []llm.Message) {
	n := len(h)
	if n == 0 {
		return nil, nil
	}
	last := h[n-1]
	if last.Role == llm.RoleUser && hasResults(last) && n >= 2 && h[n-2].Role == llm.RoleAssistant {
		return h[:n-2], h[n-2:]
	}
	if last.Role == llm.RoleUser {
		return h[:n-1], h[n-1:]
	}
	return h, nil
}

func hasResults(m llm.Message) bool {
	for _, b := range m.Content {
		if b.Type == llm.BlockToolResult {
			return true
		}
	}
	return false
}

func (a *Agent) price(u llm.Usage) float64 {
	if a.Config.Price == nil {
		return 0
	}
	return a.Config.Price(a.Config.Model, u)
}

// Compact compacts the conversation now, between turns (a face's /compact command).
func (a *Agent) Compact(ctx context.Context, focus string) error {
	return a.compact(ctx, "manual", focus)
}
