package acp

import (
	"encoding/base64"

	sdk "github.com/coder/acp-go-sdk"

	"github.com/gantry-dev/gantry/internal/app"
	"github.com/gantry-dev/gantry/internal/llm"
	"github.com/gantry-dev/gantry/internal/tool"
)

// replay returns the stored conversation as the updates that would have shown it:
// the person's messages, the model's text and thinking, and every tool call with
// its result.
func (s *session) replay() []sdk.SessionUpdate {
	msgs, err := s.app.Transcript()
	if err != nil {
		s.ag.log.Warn("the session's history could not be read", "session", s.id, "err", err)
		return nil
	}
	var out []sdk.SessionUpdate
	for _, m := range msgs {
		for _, b := range m.Content {
			if u, ok := s.replayBlock(m.Role, b); ok {
				out = append(out, u)
			}
		}
	}
	return out
}

func (s *session) replayBlock(role llm.Role, b llm.Block) (sdk.SessionUpdate, bool) {
	switch b.Type {
	case llm.BlockText:
		switch {
		case b.Text == "":
			return sdk.SessionUpdate{}, false
		case role == llm.RoleUser && app.Added(b):
			return sdk.SessionUpdate{}, false
		case role == llm.RoleUser:
			return sdk.UpdateUserMessageText(b.Text), true
		}
		return sdk.UpdateAgentMessageText(b.Text), true
	case llm.BlockThinking:
		if b.Text == "" {
			return sdk.SessionUpdate{}, false
		}
		return sdk.UpdateAgentThoughtText(b.Text), true
	case llm.BlockImage:
		if len(b.Images) == 0 || role != llm.RoleUser {
			return sdk.SessionUpdate{}, false
		}
		img := b.Images[0]
		return sdk.UpdateUserMessage(sdk.ImageBlock(base64.StdEncoding.EncodeToString(img.Data), img.MediaType)), true
	case llm.BlockToolUse:
		c := s.app.DescribeCall(b.ToolName, b.Input)
		return sdk.StartToolCall(sdk.ToolCallId(b.ToolCallID), title(c),
			sdk.WithStartKind(sdk.ToolKind(c.Kind)), sdk.WithStartStatus(sdk.ToolCallStatusPending),
			sdk.WithStartLocations(locations(c.Locations)), sdk.WithStartRawInput(rawJSON(b.Input))), true
	case llm.BlockToolResult:
		status := sdk.ToolCallStatusCompleted
		if b.IsError {
			status = sdk.ToolCallStatusFailed
		}
		r := tool.Result{Text: b.Text, IsError: b.IsError, Images: b.Images}
		return sdk.UpdateToolCall(sdk.ToolCallId(b.ToolCallID), sdk.WithUpdateStatus(status),
			sdk.WithUpdateContent(resultContent(r)), sdk.WithUpdateRawOutput(rawOutput(r))), true
	}
	return sdk.SessionUpdate{}, false
}
