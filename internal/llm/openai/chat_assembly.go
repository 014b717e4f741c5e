package openai

import (
	"fmt"
	"strings"

	"github.com/gantry-dev/gantry/internal/llm"
)

// chatAssembly builds a response from Chat Completions chunks.
type chatAssembly struct {
	thinking, text strings.Builder
	calls          []*chatCall
	finish         string
	usage          chatUsage
	budget         *llm.Budget
}

// chatCall is a tool call being streamed.
type chatCall struct {
	index    int64
	id, name string
	args     strings.Builder
}

// add takes one chunk of choice 0, emitting its deltas. It fails once the
// response has streamed more than its budget.
func (a *chatAssembly) add(chunk chatChunk, emit func(llm.Delta)) error {
	if a.budget == nil {
		a.budget = llm.NewBudget(0)
	}
	if chunk.Usage != nil {
		a.usage = *chunk.Usage
	}
	for _, ch := range chunk.Choices {
		if ch.Index != 0 {
			continue
		}
		d := ch.Delta
		n := len(d.Content)
		for _, tc := range d.ToolCalls {
			n += len(tc.Function.Arguments)
		}
		r := reasoningDelta(d)
		if err := a.budget.Take(n + len(r)); err != nil {
			return err
		}
		if r != "" {
			a.thinking.WriteString(r)
			emit(llm.Delta{Type: llm.DeltaThinking, Text: r})
		}
		if d.Content != "" {
			a.text.WriteString(d.Content)
			emit(llm.Delta{Type: llm.DeltaText, Text: d.Content})
		}
		for _, tc := range d.ToolCalls {
			i, c := a.call(tc)
			if tc.Function.Arguments != "" {
				emit(llm.Delta{Type: llm.DeltaToolInput, Text: tc.Function.Arguments, Index: i,
					ToolCall: &llm.Block{Type: llm.BlockToolUse, ToolCallID: callID(c.id, i), ToolName: c.name}})
			}
		}
		if ch.FinishReason != "" && a.finish == "" {
			a.finish = ch.FinishReason
			for i, b := range a.toolBlocks() {
				emit(llm.Delta{Type: llm.DeltaToolCall, ToolCall: &b, Index: i})
			}
		}
	}
	return nil
}

// reasoningDelta reads the reasoning text that compatible servers send in the
// non-standard reasoning_content (DeepSeek, vLLM, llama.cpp) or reasoning
// (Ollama, OpenRouter) field.
func reasoningDelta(d chatDelta) string {
	if d.ReasoningContent != "" {
		return string(d.ReasoningContent)
	}
	return string(d.Reasoning)
}

// call adds a tool call delta and returns the call's place among the response's
// calls, and the call. A delta with a new id starts a call; one without continues
// the latest call at its index.
func (a *chatAssembly) call(tc chatCallDelta) (int, *chatCall) {
	n := -1
	for i := len(a.calls) - 1; i >= 0; i-- {
		if x := a.calls[i]; (tc.ID != "" && x.id == tc.ID) || (tc.ID == "" && x.index == tc.Index) {
			n = i
			break
		}
	}
	if n < 0 {
		a.calls = append(a.calls, &chatCall{index: tc.Index, id: tc.ID})
		n = len(a.calls) - 1
	}
	c := a.calls[n]
	if c.name == "" {
		c.name = tc.Function.Name
	}
	c.args.WriteString(tc.Function.Arguments)
	return n, c
}

func (a *chatAssembly) toolBlocks() []llm.Block {
	blocks := make([]llm.Block, 0, len(a.calls))
	for i, c := range a.calls {
		blocks = append(blocks, toolUse(callID(c.id, i), c.name, c.args.String()))
	}
	return blocks
}

// callID is the id of the i-th call: the server's, or call_i when it gave none.
func callID(id string, i int) string {
	if id == "" {
		return fmt.Sprintf("call_%d", i)
	}
	return id
}

func (a *chatAssembly) response() llm.Response {
	msg := llm.Message{Role: llm.RoleAssistant}
	if a.thinking.Len() > 0 {
		msg.Content = append(msg.Content, llm.Block{Type: llm.BlockThinking, Text: a.thinking.String()})
	}
	if a.text.Len() > 0 {
		msg.Content = append(msg.Content, llm.Block{Type: llm.BlockText, Text: a.text.String()})
	}
	msg.Content = append(msg.Content, a.toolBlocks()...)
	d := a.usage.PromptTokensDetails
	return llm.Response{
		Message:    msg,
		Usage:      usage(a.usage.PromptTokens, d.CachedTokens, d.CacheWriteTokens, a.usage.CompletionTokens),
		StopReason: chatStopReason(a.finish, len(a.calls) > 0),
	}
}

// chatStopReason maps a finish_reason to the llm vocabulary.
func chatStopReason(finish string, calls bool) string {
	switch {
	case finish == "length":
		return "max_tokens"
	case calls:
		return "tool_use"
	case finish == "stop":
		return "end_turn"
	}
	return finish
}
