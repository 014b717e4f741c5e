package anthropic

import (
	"encoding/json"

	"github.com/anthropics/anthropic-sdk-go/v2"

	"github.com/gantry-dev/gantry/internal/llm"
)

// decodeMessage maps the assembled API message to an llm.Response. Redacted
// thinking blocks have no llm form and are left out.
func decodeMessage(m anthropic.Message) llm.Response {
	out := llm.Message{Role: llm.RoleAssistant}
	for _, b := range m.Content {
		switch b.Type {
		case "text":
			out.Content = append(out.Content, llm.Block{Type: llm.BlockText, Text: b.Text})
		case "thinking":
			out.Content = append(out.Content, llm.Block{Type: llm.BlockThinking, Text: b.Thinking, Signature: b.Signature})
		case "tool_use":
			out.Content = append(out.Content, toolUse(b))
		}
	}
	return llm.Response{
		Message: out,
		Usage: llm.Usage{
			InputTokens:      m.Usage.InputTokens,
			OutputTokens:     m.Usage.OutputTokens,
			CacheReadTokens:  m.Usage.CacheReadInputTokens,
			CacheWriteTokens: m.Usage.CacheCreationInputTokens,
		},
		StopReason: string(m.StopReason),
	}
}

// toolUse maps a complete tool_use block; its input is {} when the model gave none.
func toolUse(b anthropic.ContentBlockUnion) llm.Block {
	input := json.RawMessage(`{}`)
	if len(b.Input) > 0 && json.Valid(b.Input) && string(b.Input) != "null" {
		input = append(json.RawMessage(nil), b.Input...)
	}
	return llm.Block{Type: llm.BlockToolUse, ToolCallID: b.ID, ToolName: b.Name, Input: input}
}
