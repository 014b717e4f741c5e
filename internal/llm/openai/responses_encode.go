package openai

import (
	"encoding/json"
	"fmt"
	"strings"

	"github.com/openai/openai-go/v3/packages/param"
	"github.com/openai/openai-go/v3/responses"

	"github.com/gantry-dev/gantry/internal/llm"
)

// apiName marks the server blocks of the Responses API (llm.Block.API).
const apiName = "openai"

// reasoningPrefix marks the Signature of a thinking block that holds a Responses
// reasoning item, so it can be sent back (and other providers can skip it).
const reasoningPrefix = "openai:"

// reasoningRef is what a thinking block's Signature keeps of a reasoning item.
type reasoningRef struct {
	ID               string `json:"id"`
	EncryptedContent string `json:"encrypted_content,omitempty"`
}

func (r reasoningRef) signature() string {
	b, _ := json.Marshal(r)
	return reasoningPrefix + string(b)
}

func parseReasoningRef(sig string) (reasoningRef, bool) {
	var r reasoningRef
	rest, ok := strings.CutPrefix(sig, reasoningPrefix)
	if !ok || json.Unmarshal([]byte(rest), &r) != nil || r.ID == "" {
		return r, false
	}
	return r, true
}

// encodeResponses maps req to Responses API parameters.
func encodeResponses(req llm.Request) (responses.ResponseNewParams, error) {
	// Nothing is stored on the server: the conversation is sent whole each time,
	// reasoning items with their encrypted content, so that a session resumed later
	// (or elsewhere) never depends on what the server kept.
	p := responses.ResponseNewParams{Model: req.Model, Store: param.NewOpt(false),
		Include: []responses.ResponseIncludable{responses.ResponseIncludableReasoningEncryptedContent}}
	if req.CacheKey != "" {
		p.PromptCacheKey = param.NewOpt(req.CacheKey)
	}
	if req.System != "" {
		p.Instructions = param.NewOpt(req.System)
	}
	if req.MaxTokens > 0 {
		p.MaxOutputTokens = param.NewOpt(int64(req.MaxTokens))
	}
	var items responses.ResponseInputParam
	for i, m := range req.Messages {
		switch m.Role {
		case llm.RoleUser:
			items = appendUserItems(items, m)
		case llm.RoleAssistant:
			items = appendAssistantItems(items, m)
		default:
			return p, fmt.Errorf("message %d: unknown role %q", i+1, m.Role)
		}
	}
	p.Input = responses.ResponseNewParamsInputUnion{OfInputItemList: items}
	deferred := false
	for _, t := range req.Tools {
		schema, err := schemaMap(t.Schema)
		if err != nil {
			return p, fmt.Errorf("tool %s: %w", t.Name, err)
		}
		ft := &responses.FunctionToolParam{Name: t.Name, Parameters: schema, Strict: param.NewOpt(false)}
		if t.Description != "" {
			ft.Description = param.NewOpt(t.Description)
		}
		if t.Defer {
			ft.DeferLoading = param.NewOpt(true)
			deferred = true
		}
		p.Tools = append(p.Tools, responses.ToolUnionParam{OfFunction: ft})
	}
	if deferred {
		// The API's own search over the deferred tools (run by the server).
		p.Tools = append(p.Tools, responses.ToolUnionParam{OfToolSearch: &responses.ToolSearchToolParam{}})
	}
	return p, nil
}

// appendUserItems adds a user message: its text and images as messages, its tool
// results as function_call_output items, in the order of the blocks.
func appendUserItems(items responses.ResponseInputParam, m llm.Message) responses.ResponseInputParam {
	var content responses.ResponseInputMessageContentListParam
	flush := func() {
		if len(content) > 0 {
			items = append(items, responses.ResponseInputItemUnionParam{OfMessage: &responses.EasyInputMessageParam{
				Role:    responses.EasyInputMessageRoleUser,
				Content: responses.EasyInputMessageContentUnionParam{OfInputItemContentList: content},
			}})
			content = nil
		}
	}
	for _, b := range m.Content {
		switch b.Type {
		case llm.BlockText:
			if b.Text == "" {
				continue
			}
			content = append(content, responses.ResponseInputContentUnionParam{OfInputText: &responses.ResponseInputTextParam{Text: b.Text}})
		case llm.BlockImage:
			for _, img := range b.Images {
				content = append(content, responses.ResponseInputContentUnionParam{OfInputImage: &responses.ResponseInputImageParam{
					ImageURL: param.NewOpt(dataURL(img)), Detail: responses.ResponseInputImageDetailAuto}})
			}
		case llm.BlockToolResult:
			flush()
			items = append(items, responses.ResponseInputItemUnionParam{OfFunctionCallOutput: functionCallOutput(b)})
		}
	}
	flush()
	return items
}

func functionCallOutput(b llm.Block) *responses.ResponseInputItemFunctionCallOutputParam {
	out := &responses.ResponseInputItemFunctionCallOutputParam{CallID: param.NewOpt(b.ToolCallID)}
	if len(b.Images) == 0 {
		out.Output.OfString = param.NewOpt(resultText(b))
		return out
	}
	list := responses.ResponseFunctionCallOutputItemListParam{{OfInputText: &responses.ResponseInputTextContentParam{Text: resultText(b)}}}
	for _, img := range b.Images {
		list = append(list, responses.ResponseFunctionCallOutputItemUnionParam{OfInputImage: &responses.ResponseInputImageContentParam{
			ImageURL: param.NewOpt(dataURL(img))}})
	}
	out.Output.OfResponseFunctionCallOutputItemArray = list
	return out
}

// appendAssistantItems adds an assistant message: text as messages, reasoning
// items kept from a Responses answer, tool calls as function_call items.
func appendAssistantItems(items responses.ResponseInputParam, m llm.Message) responses.ResponseInputParam {
	for _, b := range m.Content {
		switch b.Type {
		case llm.BlockText:
			if b.Text == "" {
				continue
			}
			items = append(items, responses.ResponseInputItemUnionParam{OfMessage: &responses.EasyInputMessageParam{
				Role:    responses.EasyInputMessageRoleAssistant,
				Content: responses.EasyInputMessageContentUnionParam{OfString: param.NewOpt(b.Text)},
			}})
		case llm.BlockThinking:
			ref, ok := parseReasoningRef(b.Signature)
			if !ok {
				continue // reasoning of another provider
			}
			r := &responses.ResponseReasoningItemParam{ID: ref.ID, Summary: []responses.ResponseReasoningItemSummaryParam{}}
			if b.Text != "" {
				r.Summary = append(r.Summary, responses.ResponseReasoningItemSummaryParam{Text: b.Text})
			}
			if ref.EncryptedContent != "" {
				r.EncryptedContent = param.NewOpt(ref.EncryptedContent)
			}
			items = append(items, responses.ResponseInputItemUnionParam{OfReasoning: r})
		case llm.BlockToolUse:
			items = append(items, responses.ResponseInputItemUnionParam{OfFunctionCall: &responses.ResponseFunctionToolCallParam{
				CallID: b.ToolCallID, Name: b.ToolName, Arguments: arguments(b)}})
		case llm.BlockServer:
			if b.API != apiName || len(b.Raw) == 0 {
				continue // another API's step
			}
			var item responses.ResponseInputItemUnionParam
			if json.Unmarshal(b.Raw, &item) == nil {
				items = append(items, item)
			}
		}
	}
	return items
}
