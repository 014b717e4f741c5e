package session

import (
	"slices"

	"github.com/gantry-dev/gantry/internal/llm"
)

// Interrupted is the text of the synthetic result Repair gives a tool call whose
// result was never stored.
const Interrupted = "[interrupted: gantry stopped before this call finished]"

// Repair returns the history msgs made valid for the next request after an
// interruption (a crash, a kill, a cancelled turn), without changing msgs:
//
//   - empty messages are dropped and consecutive user messages are merged into one;
//   - every tool_use block of an assistant message gets exactly one tool_result in the
//     user message that follows, placed first and in the order of the calls: a missing
//     result becomes a synthetic one (Interrupted, is_error), and when no user message
//     follows, one is inserted;
//   - a tool_result that answers no call of the message before it (or answers one
//     twice) becomes a text block, since the APIs reject it.
//
// A well-formed history (results first in their message, in the order of the calls)
// comes back equal to msgs.
func Repair(msgs []llm.Message) []llm.Message {
	merged := make([]llm.Message, 0, len(msgs))
	for _, m := range msgs {
		if len(m.Content) == 0 {
			continue
		}
		if n := len(merged); n > 0 && m.Role == llm.RoleUser && merged[n-1].Role == llm.RoleUser {
			merged[n-1].Content = append(merged[n-1].Content, m.Content...)
			continue
		}
		merged = append(merged, llm.Message{Role: m.Role, Content: slices.Clone(m.Content)})
	}

	out := make([]llm.Message, 0, len(merged)+1)
	for i := 0; i < len(merged); i++ {
		m := merged[i]
		if m.Role != llm.RoleAssistant {
			// A user message that follows no assistant message answers no call.
			out = append(out, pairResults(m, nil))
			continue
		}
		out = append(out, m)
		calls := m.ToolCalls()
		next := llm.Message{Role: llm.RoleUser}
		if i+1 < len(merged) && merged[i+1].Role == llm.RoleUser {
			next = merged[i+1]
			i++
		} else if len(calls) == 0 {
			continue
		}
		out = append(out, pairResults(next, calls))
	}
	return out
}

// pairResults returns user message m with one tool_result for each of calls, first and
// in order, then m's other blocks; results that answer none of calls become text.
func pairResults(m llm.Message, calls []llm.Block) llm.Message {
	results := make(map[string]int) // call id → index in m.Content of its result
	for i, b := range m.Content {
		if b.Type == llm.BlockToolResult {
			if _, seen := results[b.ToolCallID]; !seen {
				results[b.ToolCallID] = i
			}
		}
	}
	used := make(map[int]bool, len(calls))
	content := make([]llm.Block, 0, len(calls)+len(m.Content))
	for _, c := range calls {
		if i, ok := results[c.ToolCallID]; ok && !used[i] {
			used[i] = true
			content = append(content, m.Content[i])
			continue
		}
		content = append(content, llm.Block{
			Type:       llm.BlockToolResult,
			ToolCallID: c.ToolCallID,
			Text:       Interrupted,
			IsError:    true,
		})
	}
	for i, b := range m.Content {
		switch {
		case used[i]:
		case b.Type == llm.BlockToolResult:
			content = append(content, llm.Block{
				Type: llm.BlockText,
				Text: "[result of a tool call " + b.ToolCallID + " that is not in the history]\n" + b.Text,
			})
		default:
			content = append(content, b)
		}
	}
	return llm.Message{Role: m.Role, Content: content}
}
