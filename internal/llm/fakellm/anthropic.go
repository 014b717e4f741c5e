package fakellm

import (
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"strconv"
)

// anthropicErrorType is the error type the Messages API gives for an HTTP status.
func anthropicErrorType(status int) string {
	switch status {
	case 400:
		return "invalid_request_error"
	case 401:
		return "authentication_error"
	case 403:
		return "permission_error"
	case 404:
		return "not_found_error"
	case 413:
		return "request_too_large"
	case 429:
		return "rate_limit_error"
	case 529:
		return "overloaded_error"
	default:
		return "api_error"
	}
}

func anthropicError(kind string) obj {
	return obj{"type": "error", "error": obj{"type": kind, "message": "fakellm: scripted " + kind}}
}

// serveAnthropic answers a Messages API request as an SSE stream.
func serveAnthropic(c *call) {
	if c.turn.Status != 0 {
		c.w.Header().Set("request-id", "req_fake_"+strconv.Itoa(c.seq))
		c.fail(anthropicError(anthropicErrorType(c.turn.Status)))
		return
	}
	s := c.stream()
	s.errorEvent = func(s *stream, kind string) { s.write("error", anthropicError(kind)) }
	s.ping = func(s *stream) { s.write("ping", obj{"type": "ping"}) }
	u := c.usage
	if !s.send("message_start", obj{"type": "message_start", "message": obj{
		"id": fmt.Sprintf("msg_fake_%d", c.seq), "type": "message", "role": "assistant",
		"model": c.model, "content": []any{}, "stop_reason": nil, "stop_sequence": nil,
		"usage": obj{
			"input_tokens": u.InputTokens, "output_tokens": 1,
			"cache_read_input_tokens": u.CacheReadTokens, "cache_creation_input_tokens": u.CacheWriteTokens,
		},
	}}) {
		return
	}
	if !s.send("ping", obj{"type": "ping"}) {
		return
	}
	for i, p := range c.turn.Parts {
		if !anthropicBlock(s, i, p) {
			return
		}
	}
	if !s.send("message_delta", obj{"type": "message_delta",
		"delta": obj{"stop_reason": c.turn.stopReason(), "stop_sequence": nil},
		"usage": obj{"output_tokens": u.OutputTokens}}) {
		return
	}
	s.send("message_stop", obj{"type": "message_stop"})
}

// anthropicBlock streams part p as content block i: start, deltas, stop.
func anthropicBlock(s *stream, i int, p Part) bool {
	delta := func(d obj) bool {
		return s.send("content_block_delta", obj{"type": "content_block_delta", "index": i, "delta": d})
	}
	var start obj
	var deltas []obj
	switch p.Kind {
	case KindText:
		// Streamed as it goes, as an endless part never ends.
		if !s.send("content_block_start", obj{"type": "content_block_start", "index": i, "content_block": obj{"type": "text", "text": ""}}) {
			return false
		}
		for w := range p.chunks() {
			if !delta(obj{"type": "text_delta", "text": w}) {
				return false
			}
		}
		return s.send("content_block_stop", obj{"type": "content_block_stop", "index": i})
	case KindThinking:
		start = obj{"type": "thinking", "thinking": "", "signature": ""}
		for _, w := range words(p.Text) {
			deltas = append(deltas, obj{"type": "thinking_delta", "thinking": w})
		}
		deltas = append(deltas, obj{"type": "signature_delta", "signature": signature(p.Text)})
	case KindToolSearch:
		start = obj{"type": "server_tool_use", "id": p.ID, "name": "tool_search_tool_bm25", "input": obj{}}
		q, _ := json.Marshal(obj{"query": p.Text})
		deltas = append(deltas, obj{"type": "input_json_delta", "partial_json": string(q)})
	case KindToolFound:
		refs := []any{}
		for _, n := range p.Found {
			refs = append(refs, obj{"type": "tool_reference", "tool_name": n})
		}
		start = obj{"type": "tool_search_tool_result", "tool_use_id": p.ID,
			"content": obj{"type": "tool_search_tool_search_result", "tool_references": refs}}
	case KindToolCall:
		start = obj{"type": "tool_use", "id": p.ID, "name": p.Name, "input": obj{}}
		args := pieces(p.Input, 12)
		if len(args) == 0 {
			args = []string{""}
		}
		for _, a := range args {
			deltas = append(deltas, obj{"type": "input_json_delta", "partial_json": a})
		}
	}
	if !s.send("content_block_start", obj{"type": "content_block_start", "index": i, "content_block": start}) {
		return false
	}
	for _, d := range deltas {
		if !delta(d) {
			return false
		}
	}
	return s.send("content_block_stop", obj{"type": "content_block_stop", "index": i})
}

// signature is a stand-in for the signature of a thinking block: opaque, base64,
// derived from the text.
func signature(text string) string {
	sum := sha256.Sum256([]byte(text))
	return base64.StdEncoding.EncodeToString(sum[:])
}
