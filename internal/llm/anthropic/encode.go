package anthropic

import (
	"encoding/base64"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/anthropics/anthropic-sdk-go/v2"
	"github.com/anthropics/anthropic-sdk-go/v2/packages/param"

	"github.com/gantry-dev/gantry/internal/llm"
)

// encodeRequest maps req to the Messages API parameters. It sets two prompt-cache
// breakpoints: on the system prompt (caching tools and system) and on the last
// block of the last message (caching the conversation so far).
func encodeRequest(req llm.Request) (anthropic.MessageNewParams, error) {
	p := anthropic.MessageNewParams{
		Model:     anthropic.Model(req.Model),
		MaxTokens: int64(req.MaxTokens),
	}
	if p.MaxTokens <= 0 {
		p.MaxTokens = defaultMaxTokens
	}
	if req.System != "" {
		p.System = []anthropic.TextBlockParam{{Text: req.System, CacheControl: anthropic.NewCacheControlEphemeralParam()}}
	}
	for i, m := range req.Messages {
		mp, err := encodeMessage(m, i == len(req.Messages)-1)
		if err != nil {
			return p, messageError(i, err)
		}
		p.Messages = append(p.Messages, mp)
	}
	deferred := false
	for _, t := range req.Tools {
		p.Tools = append(p.Tools, encodeTool(t))
		deferred = deferred || t.Defer
	}
	if deferred {
		// The API's own search over the deferred tools: a found tool's schema is put
		// where the search was, so the request's prefix does not change.
		p.Tools = append(p.Tools, anthropic.ToolUnionParam{OfToolSearchToolBm25_20251119: &anthropic.ToolSearchToolBm25_20251119Param{
			Type: anthropic.ToolSearchToolBm25_20251119TypeToolSearchToolBm25_20251119}})
	}
	markTools(req.Tools, p.Tools)
	return p, nil
}

// markTools sets a cache breakpoint on the tool the request marks (ToolSpec.Breakpoint).
func markTools(specs []llm.ToolSpec, tools []anthropic.ToolUnionParam) {
	for i, t := range specs {
		if t.Breakpoint && !t.Defer {
			tools[i].OfTool.CacheControl = anthropic.NewCacheControlEphemeralParam()
			return
		}
	}
}

// apiName marks the blocks of this API (llm.Block.API).
const apiName = "anthropic"

func messageError(i int, err error) error { return fmt.Errorf("message %d: %w", i+1, err) }

func encodeMessage(m llm.Message, last bool) (anthropic.MessageParam, error) {
	var blocks []anthropic.ContentBlockParamUnion
	for _, b := range m.Content {
		bp, ok, err := encodeBlock(b)
		if err != nil {
			return anthropic.MessageParam{}, err
		}
		if ok {
			blocks = append(blocks, bp)
		}
	}
	if last {
		markCache(blocks)
	}
	switch m.Role {
	case llm.RoleUser:
		return anthropic.MessageParam{OfUser: &anthropic.UserMessageParam{Content: blocks}}, nil
	case llm.RoleAssistant:
		return anthropic.MessageParam{OfAssistant: &anthropic.AssistantMessageParam{Content: blocks}}, nil
	}
	return anthropic.MessageParam{}, fmt.Errorf("unknown role %q", m.Role)
}

// encodeBlock maps one block; ok is false for a block the API must not see: an
// empty text block, or a thinking block without an Anthropic signature (from
// another provider).
func encodeBlock(b llm.Block) (bp anthropic.ContentBlockParamUnion, ok bool, err error) {
	switch b.Type {
	case llm.BlockText:
		if b.Text == "" {
			return bp, false, nil // the API rejects empty text blocks
		}
		return anthropic.ContentBlockParamUnion{OfText: &anthropic.TextBlockParam{Text: b.Text}}, true, nil
	case llm.BlockThinking:
		if b.Signature == "" || strings.HasPrefix(b.Signature, "openai:") {
			return bp, false, nil
		}
		return anthropic.ContentBlockParamUnion{OfThinking: &anthropic.ThinkingBlockParam{
			Thinking: b.Text, Signature: b.Signature}}, true, nil
	case llm.BlockToolUse:
		return anthropic.ContentBlockParamUnion{OfToolUse: &anthropic.ToolUseBlockParam{
			ID: b.ToolCallID, Name: b.ToolName, Input: toolInput(b)}}, true, nil
	case llm.BlockToolResult:
		return anthropic.ContentBlockParamUnion{OfToolResult: encodeToolResult(b)}, true, nil
	case llm.BlockServer:
		if b.API != apiName || len(b.Raw) == 0 {
			return bp, false, nil // another API's step
		}
		if err := json.Unmarshal(b.Raw, &bp); err != nil {
			return bp, false, fmt.Errorf("the API's own block: %w", err)
		}
		return bp, true, nil
	case llm.BlockImage:
		if len(b.Images) != 1 {
			return bp, false, fmt.Errorf("image block with %d images, want 1", len(b.Images))
		}
		return anthropic.ContentBlockParamUnion{OfImage: encodeImage(b.Images[0])}, true, nil
	}
	return bp, false, fmt.Errorf("unknown block type %q", b.Type)
}

func encodeToolResult(b llm.Block) *anthropic.ToolResultBlockParam {
	r := &anthropic.ToolResultBlockParam{ToolUseID: b.ToolCallID}
	if b.IsError {
		r.IsError = param.NewOpt(true)
	}
	if b.Text != "" {
		r.Content = append(r.Content, anthropic.ToolResultBlockParamContentUnion{
			OfText: &anthropic.TextBlockParam{Text: b.Text}})
	}
	for _, img := range b.Images {
		r.Content = append(r.Content, anthropic.ToolResultBlockParamContentUnion{OfImage: encodeImage(img)})
	}
	return r
}

func encodeImage(img llm.Image) *anthropic.ImageBlockParam {
	return &anthropic.ImageBlockParam{Source: anthropic.ImageBlockParamSourceUnion{
		OfBase64: &anthropic.Base64ImageSourceParam{
			Data:      base64.StdEncoding.EncodeToString(img.Data),
			MediaType: anthropic.Base64ImageSourceMediaType(img.MediaType),
		},
	}}
}

// markCache sets a cache breakpoint on the last block that can carry one.
func markCache(blocks []anthropic.ContentBlockParamUnion) {
	cc := anthropic.NewCacheControlEphemeralParam()
	for i := len(blocks) - 1; i >= 0; i-- {
		b := blocks[i]
		switch {
		case b.OfText != nil:
			b.OfText.CacheControl = cc
		case b.OfImage != nil:
			b.OfImage.CacheControl = cc
		case b.OfToolUse != nil:
			b.OfToolUse.CacheControl = cc
		case b.OfToolResult != nil:
			b.OfToolResult.CacheControl = cc
		default:
			continue // thinking blocks cannot be breakpoints
		}
		return
	}
}

// inputJSON is a tool call's input as the API wants it: a JSON object, {} if none.
// toolInput is the input of a tool_use block as sent back: arguments that were
// not JSON go back wrapped (llm.UnparsedInput).
func toolInput(b llm.Block) json.RawMessage {
	if b.RawInput != "" {
		return llm.UnparsedInput(b.RawInput)
	}
	return inputJSON(b.Input)
}

func inputJSON(in json.RawMessage) json.RawMessage {
	if len(in) == 0 || string(in) == "null" {
		return json.RawMessage(`{}`)
	}
	return in
}

func encodeTool(t llm.ToolSpec) anthropic.ToolUnionParam {
	tp := &anthropic.ToolParam{Name: t.Name}
	if t.Description != "" {
		tp.Description = param.NewOpt(t.Description)
	}
	if len(t.Schema) > 0 && string(t.Schema) != "null" {
		tp.InputSchema = param.Override[anthropic.ToolInputSchemaParam](t.Schema)
	}
	if t.Defer {
		tp.DeferLoading = param.NewOpt(true)
	}
	return anthropic.ToolUnionParam{OfTool: tp}
}
