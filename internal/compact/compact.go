// Package compact shrinks a conversation that is filling the model's context window:
// it asks the model for a summary of the history and builds the new, short history
// that replaces it — the summary, the todo list and task board verbatim, and the
// memory files — which the agent continues from. The full history is the session
// store's business; this package only produces the model's new context.
package compact

import (
	"context"
	_ "embed"
	"errors"
	"fmt"
	"strings"

	"github.com/gantry-dev/gantry/internal/llm"
)

// DefaultThreshold is the share of the context window at which compaction is due when
// no threshold is configured.
const DefaultThreshold = 0.8

// MaxSummaryTokens bounds the summary the model may write.
const MaxSummaryTokens = 4096

// instruction is the request for a summary, sent as the last user message.
//
//go:embed summary.md
var instruction string

// system is the system prompt of the summary request.
const system = "You summarise a coding agent's conversation so that the agent can continue the work from the summary alone. You are precise, complete and never invent anything."

// Due reports whether a conversation whose last request used inputTokens (the input,
// cache read and cache write tokens of the last response's usage) should be compacted
// for a model with the given context window (0: unknown → never) at threshold
// (0 < t ≤ 1; 0, or a value out of range, means DefaultThreshold).
func Due(inputTokens int64, window int, threshold float64) bool {
	if window <= 0 || inputTokens <= 0 {
		return false
	}
	if threshold <= 0 || threshold > 1 {
		threshold = DefaultThreshold
	}
	return float64(inputTokens) >= threshold*float64(window)
}

// ContextTokens returns the tokens a request filled the context window with, from
// its response's usage: the input, cache read and cache write tokens (the adapters
// count them apart). It is what Due takes.
func ContextTokens(u llm.Usage) int64 {
	return u.InputTokens + u.CacheReadTokens + u.CacheWriteTokens
}

// Input is what a compaction works from.
type Input struct {
	History []llm.Message // the conversation to summarise (as sent to the model)
	Todo    string        // the todo list as text (verbatim), may be ""
	Tasks   string        // the task board as text (verbatim), may be ""
	Memory  string        // the memory files' text (AGENTS.md…), re-injected after the summary
	Focus   string        // optional instructions from the user or the model (the compact tool's argument)
}

// Summarize asks the model for a summary of in.History and returns the new history:
// one user message holding the summary, the todo list and tasks verbatim and the
// memory files (see Render), followed by an assistant message acknowledging it —
// ready to be continued with the next prompt or request. It also returns the summary
// alone and the usage of the request, which is also returned with an error when the
// model answered, so that it can be accounted for. A summary cut at its length limit
// is kept, and says so.
//
// The request carries no tools, so the history is sent as a transcript: tool calls
// and results become text, thinking and images are left out, calls never answered
// are marked as not run, and a history too large for the model's context window has
// its oldest tool results cut in the middle (and, if that is not enough, its oldest
// messages dropped), which the instruction tells the model.
func Summarize(ctx context.Context, p llm.Provider, model string, in Input) (history []llm.Message, summary string, usage llm.Usage, err error) {
	turns := transcript(in.History)
	if len(turns) == 0 {
		return nil, "", llm.Usage{}, errors.New("nothing to compact: the conversation is empty")
	}
	turns, cut := bound(turns, budget(model))
	req := llm.Request{
		Model:     model,
		System:    system,
		Messages:  messages(turns, request(in, cut)),
		MaxTokens: MaxSummaryTokens,
	}
	resp, err := p.Stream(ctx, req, func(llm.Delta) {})
	if err != nil {
		return nil, "", resp.Usage, fmt.Errorf("compacting the conversation: %w", err)
	}
	summary = strings.TrimSpace(resp.Message.Text())
	if summary == "" {
		return nil, "", resp.Usage, fmt.Errorf("compacting the conversation: the model wrote no summary (stop reason %q)", resp.StopReason)
	}
	if resp.StopReason == "max_tokens" {
		summary += "\n\n[The summary was cut off here: it reached its length limit.]"
	}
	history = []llm.Message{
		{Role: llm.RoleUser, Content: []llm.Block{{Type: llm.BlockText, Text: Render(summary, in.Todo, in.Tasks, in.Memory)}}},
		{Role: llm.RoleAssistant, Content: []llm.Block{{Type: llm.BlockText, Text: Acknowledgement}}},
	}
	return history, summary, resp.Usage, nil
}

// request is the text of the last user message: the embedded instruction, what the
// bounding cut, the todo list and tasks for reference, and the focus asked for.
func request(in Input, cut cuts) string {
	var b strings.Builder
	b.WriteString(strings.TrimSpace(instruction))
	if note := cut.note(); note != "" {
		b.WriteString("\n\n" + note)
	}
	section(&b, "todo", "The current todo list, for reference (it is kept verbatim; do not copy it):", in.Todo)
	section(&b, "tasks", "The current task board, for reference (it is kept verbatim; do not copy it):", in.Tasks)
	if f := strings.TrimSpace(in.Focus); f != "" {
		b.WriteString("\n\nWhen writing the summary, follow these instructions, given for this compaction (they take precedence over the emphasis above, but never over not inventing):\n<focus>\n" + f + "\n</focus>")
	}
	return b.String()
}
