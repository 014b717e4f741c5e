package fakellm

import (
	"fmt"
	"time"
)

// chatFinishReason is the Chat Completions finish_reason for an Anthropic stop reason.
func chatFinishReason(stop string) string {
	switch stop {
	case "tool_use":
		return "tool_calls"
	case "max_tokens":
		return "length"
	default:
		return "stop"
	}
}

// serveChat answers a Chat Completions request as an SSE stream of chunks.
func serveChat(c *call) {
	if c.turn.Status != 0 {
		c.fail(openaiError(c.turn.Status))
		return
	}
	s := c.stream()
	s.errorEvent = func(s *stream, kind string) {
		s.write("", obj{"error": obj{"message": "fakellm: scripted " + kind, "type": kind, "param": nil, "code": nil}})
	}
	id, created := fmt.Sprintf("chatcmpl-fake-%d", c.seq), time.Now().Unix()
	chunk := func(delta obj, finish any) bool {
		return s.send("", obj{"id": id, "object": "chat.completion.chunk", "created": created, "model": c.model,
			"choices": []any{obj{"index": 0, "delta": delta, "finish_reason": finish, "logprobs": nil}}})
	}
	if !chunk(obj{"role": "assistant", "content": ""}, nil) {
		return
	}
	calls := 0
	for _, p := range c.turn.Parts {
		switch p.Kind {
		case KindText, KindThinking:
			field := map[PartKind]string{KindText: "content", KindThinking: "reasoning_content"}[p.Kind]
			for w := range p.chunks() {
				if !chunk(obj{field: w}, nil) {
					return
				}
			}
		case KindToolCall:
			first := obj{"index": calls, "id": p.ID, "type": "function", "function": obj{"name": p.Name, "arguments": ""}}
			if !chunk(obj{"tool_calls": []any{first}}, nil) {
				return
			}
			for _, a := range pieces(p.input(), 12) {
				if !chunk(obj{"tool_calls": []any{obj{"index": calls, "function": obj{"arguments": a}}}}, nil) {
					return
				}
			}
			calls++
		}
	}
	if !chunk(obj{}, chatFinishReason(c.turn.stopReason())) {
		return
	}
	if opts, _ := c.body["stream_options"].(obj); opts["include_usage"] == true {
		u := c.usage
		prompt := u.InputTokens + u.CacheReadTokens + u.CacheWriteTokens
		if !s.send("", obj{"id": id, "object": "chat.completion.chunk", "created": created, "model": c.model,
			"choices": []any{}, "usage": obj{
				"prompt_tokens": prompt, "completion_tokens": u.OutputTokens, "total_tokens": prompt + u.OutputTokens,
				"prompt_tokens_details": obj{"cached_tokens": u.CacheReadTokens, "cache_write_tokens": u.CacheWriteTokens},
			}}) {
			return
		}
	}
	s.send("", raw("[DONE]"))
}
