package anthropic

import (
	"encoding/json"
	"strings"

	"github.com/anthropics/anthropic-sdk-go/v2"

	"github.com/gantry-dev/gantry/internal/llm"
)

// decodeMessage maps the assembled API message to an llm.Response. Redacted
// thinking blocks have no llm form and are left out. args holds, by block index,
// the arguments of tool calls that were not JSON.
func decodeMessage(m anthropic.Message, args map[int]string) llm.Response {
	out := llm.Message{Role: llm.RoleAssistant}
	for i, b := range m.Content {
		switch b.Type {
		case "text":
			out.Content = append(out.Content, llm.Block{Type: llm.BlockText, Text: b.Text})
		case "thinking":
			out.Content = append(out.Content, llm.Block{Type: llm.BlockThinking, Text: b.Thinking, Signature: b.Signature})
		case "tool_use":
			out.Content = append(out.Content, toolUse(b, args[i]))
		case "server_tool_use", "tool_search_tool_result":
			out.Content = append(out.Content, serverBlock(b))
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

// toolUse maps a complete tool_use block; its input is {} when the model gave none,
// and when what it gave (raw) is not JSON, which is kept as RawInput.
func toolUse(b anthropic.ContentBlockUnion, raw string) llm.Block {
	input, _ := llm.ToolInput(b.Input)
	return llm.Block{Type: llm.BlockToolUse, ToolCallID: b.ID, ToolName: b.Name, Input: input, RawInput: raw}
}

// serverBlock keeps a step the API took itself — its tool search's call and result —
// as the API sent it, to be sent back as it was; a result names the tools it loaded.
func serverBlock(b anthropic.ContentBlockUnion) llm.Block {
	var raw json.RawMessage
	if b.Type == "server_tool_use" {
		// The input arrived in deltas: the block's raw JSON is its start, input {}.
		raw, _ = json.Marshal(map[string]any{"type": b.Type, "id": b.ID, "name": b.Name, "input": inputJSON(b.Input)})
	} else {
		raw = json.RawMessage(b.RawJSON())
	}
	blk := llm.Block{Type: llm.BlockServer, API: apiName, Raw: raw}
	var result struct {
		Content struct {
			References []struct {
				ToolName string `json:"tool_name"`
			} `json:"tool_references"`
		} `json:"content"`
	}
	if b.Type == "tool_search_tool_result" && json.Unmarshal(raw, &result) == nil {
		for _, r := range result.Content.References {
			blk.Found = append(blk.Found, r.ToolName)
		}
		blk.Text = "tool search found: " + strings.Join(blk.Found, ", ")
	} else {
		blk.Text = "tool search: " + string(b.Input)
	}
	return blk
}
