package openai

import (
	"fmt"
	"strings"

	"github.com/gantry-dev/gantry/internal/llm"
)

// encodeChat maps req to a Chat Completions request, asking for a usage chunk at
// the end of the stream.
func encodeChat(req llm.Request) (chatRequest, error) {
	p := chatRequest{
		Model:          req.Model,
		StreamOptions:  chatStreamOptions{IncludeUsage: true},
		PromptCacheKey: req.CacheKey,
	}
	if req.MaxTokens > 0 {
		p.MaxCompletionTokens = int64(req.MaxTokens)
	}
	if req.System != "" {
		p.Messages = append(p.Messages, chatSystem(req.System))
	}
	for i, m := range req.Messages {
		switch m.Role {
		case llm.RoleUser:
			p.Messages = appendChatUser(p.Messages, m)
		case llm.RoleAssistant:
			p.Messages = append(p.Messages, chatAssistant(m))
		default:
			return p, fmt.Errorf("message %d: unknown role %q", i+1, m.Role)
		}
	}
	for _, t := range req.Tools {
		if t.Defer {
			continue // Chat Completions has no tool search: gantry's own tool_search finds them
		}
		schema, err := schemaMap(t.Schema)
		if err != nil {
			return p, fmt.Errorf("tool %s: %w", t.Name, err)
		}
		p.Tools = append(p.Tools, chatTool{Type: "function",
			Function: chatFunction{Name: t.Name, Description: t.Description, Parameters: schema}})
	}
	return p, nil
}

func chatSystem(text string) chatMessage { return chatMessage{Role: "system", Content: text} }

// appendChatUser adds a user message. Its tool results become role "tool"
// messages, which must directly follow the assistant's tool calls; tool messages
// carry text only, so the images of tool results follow in a user message, before
// the message's own text and images.
func appendChatUser(msgs []chatMessage, m llm.Message) []chatMessage {
	var toolImages, own []chatPart
	hasImages := false
	for _, b := range m.Content {
		switch b.Type {
		case llm.BlockToolResult:
			msgs = append(msgs, chatMessage{Role: "tool", Content: resultText(b), ToolCallID: b.ToolCallID})
			if len(b.Images) > 0 {
				toolImages = append(toolImages, textPart(fmt.Sprintf("Images from the result of tool call %s:", b.ToolCallID)))
				toolImages = append(toolImages, imageParts(b.Images)...)
				hasImages = true
			}
		case llm.BlockText:
			own = append(own, textPart(b.Text))
		case llm.BlockImage:
			own = append(own, imageParts(b.Images)...)
			hasImages = true
		}
	}
	parts := append(toolImages, own...)
	switch {
	case len(parts) == 0:
		return msgs
	case !hasImages:
		// Plain text as a string: not every compatible server takes content parts.
		texts := make([]string, len(parts))
		for i, p := range parts {
			texts[i] = *p.Text
		}
		return append(msgs, chatMessage{Role: "user", Content: strings.Join(texts, "\n\n")})
	}
	return append(msgs, chatMessage{Role: "user", Content: parts})
}

func imageParts(imgs []llm.Image) []chatPart {
	parts := make([]chatPart, len(imgs))
	for i, img := range imgs {
		parts[i] = chatPart{Type: "image_url", ImageURL: &chatImageURL{URL: dataURL(img)}}
	}
	return parts
}

// chatAssistant maps an assistant message: its text joined, its tool calls.
// Thinking is not sent back; the Chat API has no field for it.
func chatAssistant(m llm.Message) chatMessage {
	a := chatMessage{Role: "assistant"}
	if text := m.Text(); text != "" || len(m.ToolCalls()) == 0 {
		a.Content = text
	}
	for _, b := range m.ToolCalls() {
		a.ToolCalls = append(a.ToolCalls, chatToolCall{ID: b.ToolCallID, Type: "function",
			Function: chatFunctionCall{Name: b.ToolName, Arguments: arguments(b)}})
	}
	return a
}
