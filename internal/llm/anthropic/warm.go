package anthropic

import (
	"encoding/json"
	"sync"

	"github.com/gantry-dev/gantry/internal/llm"
)

// warmOnce starts warmEncoding once a process.
var warmOnce sync.Once

// warmEncoding encodes a small request of every kind of block, through the same SDK
// encoding as a real one, and throws it away. The SDK builds its encoder of each
// parameter type by reflection on first use, a few milliseconds in all; done while
// the session is being set up (New starts it on another goroutine), it is off the
// way to the first request. Nothing of the session is kept: only the SDK's own
// cache of encoders, which is the process's.
func warmEncoding() {
	input := json.RawMessage(`{"command":"true"}`)
	req := llm.Request{
		Model: "claude-sonnet-4-5", System: "warm", MaxTokens: 1,
		Tools: []llm.ToolSpec{{Name: "bash", Description: "warm", Schema: json.RawMessage(`{"type":"object","properties":{"command":{"type":"string"}}}`)}},
		Messages: []llm.Message{
			{Role: llm.RoleUser, Content: []llm.Block{{Type: llm.BlockText, Text: "warm"}}},
			{Role: llm.RoleAssistant, Content: []llm.Block{{Type: llm.BlockText, Text: "warm"}, {Type: llm.BlockToolUse, ToolCallID: "w", ToolName: "bash", Input: input}}},
			{Role: llm.RoleUser, Content: []llm.Block{{Type: llm.BlockToolResult, ToolCallID: "w", Text: "warm"}}},
		},
	}
	_, _ = newBodyCache().Body(req) // a failure here is the first request's to report
}
