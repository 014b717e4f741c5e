package openai

import (
	"fmt"
	"strings"

	"github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/shared"

	"github.com/gantry-dev/gantry/internal/llm"
)

// encodeChat maps req to Chat Completions parameters, asking for a usage chunk at
// the end of the stream.
func encodeChat(req llm.Request) (openai.ChatCompletionNewParams, error) {
	p := openai.ChatCompletionNewParams{
		Model:         req.Model,
		StreamOptions: openai.ChatCompletionStreamOptionsParam{IncludeUsage: openai.Bool(true)},
	}
	if req.CacheKey != "" {
		p.PromptCacheKey = openai.String(req.CacheKey)
	}
	if req.MaxTokens > 0 {
		p.MaxCompletionTokens = openai.Int(int64(req.MaxTokens))
	}
	if req.System != "" {
		p.Messages = append(p.Messages, openai.SystemMessage(req.System))
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
		fn := shared.FunctionDefinitionParam{Name: t.Name, Parameters: shared.FunctionParameters(schema)}
		if t.Description != "" {
			fn.Description = openai.String(t.Description)
		}
		p.Tools = append(p.Tools, openai.ChatCompletionToolUnionParam{OfFunction: &openai.ChatCompletionFunctionToolParam{Function: fn}})
	}
	return p, nil
}

// appendChatUser adds a user message. Its tool results become role "tool"
// messages, which must directly follow the assistant's tool calls; tool messages
// carry text only, so the images of tool results follow in a user message, before
// the message's own text and images.
func appendChatUser(msgs []openai.ChatCompletionMessageParamUnion, m llm.Message) []openai.ChatCompletionMessageParamUnion {
	var toolImages, own []openai.ChatCompletionContentPartUnionParam
	hasImages := false
	for _, b := range m.Content {
		switch b.Type {
		case llm.BlockToolResult:
			msgs = append(msgs, openai.ToolMessage(resultText(b), b.ToolCallID))
			if len(b.Images) > 0 {
				toolImages = append(toolImages, openai.TextContentPart(fmt.Sprintf("Images from the result of tool call %s:", b.ToolCallID)))
				toolImages = append(toolImages, imageParts(b.Images)...)
				hasImages = true
			}
		case llm.BlockText:
			own = append(own, openai.TextContentPart(b.Text))
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
			texts[i] = p.OfText.Text
		}
		return append(msgs, openai.UserMessage(strings.Join(texts, "\n\n")))
	}
	return append(msgs, openai.UserMessage(parts))
}

func imageParts(imgs []llm.Image) []openai.ChatCompletionContentPartUnionParam {
	parts := make([]openai.ChatCompletionContentPartUnionParam, len(imgs))
	for i, img := range imgs {
		parts[i] = openai.ImageContentPart(openai.ChatCompletionContentPartImageImageURLParam{URL: dataURL(img)})
	}
	return parts
}

// chatAssistant maps an assistant message: its text joined, its tool calls.
// Thinking is not sent back; the Chat API has no field for it.
func chatAssistant(m llm.Message) openai.ChatCompletionMessageParamUnion {
	a := &openai.ChatCompletionAssistantMessageParam{}
	if text := m.Text(); text != "" || len(m.ToolCalls()) == 0 {
		a.Content.OfString = openai.String(text)
	}
	for _, b := range m.ToolCalls() {
		a.ToolCalls = append(a.ToolCalls, openai.ChatCompletionMessageToolCallUnionParam{
			OfFunction: &openai.ChatCompletionMessageFunctionToolCallParam{
				ID:       b.ToolCallID,
				Function: openai.ChatCompletionMessageFunctionToolCallFunctionParam{Name: b.ToolName, Arguments: arguments(b)},
			}})
	}
	return openai.ChatCompletionMessageParamUnion{OfAssistant: a}
}
