package fakellm

import (
	"fmt"
	"time"
)

// openaiError is the error body of the OpenAI APIs for an HTTP status.
func openaiError(status int) obj {
	kind, code := "server_error", any(nil)
	switch {
	case status == 429:
		kind, code = "requests", "rate_limit_exceeded"
	case status == 401:
		kind, code = "invalid_request_error", "invalid_api_key"
	case status < 500:
		kind = "invalid_request_error"
	}
	return obj{"error": obj{"message": fmt.Sprintf("fakellm: scripted HTTP %d", status),
		"type": kind, "param": nil, "code": code}}
}

// responsesCall streams one Responses API answer; seq numbers the events.
type responsesCall struct {
	*call
	s   *stream
	seq int
}

// send writes a Responses event, whose type is both the SSE event name and the
// "type" field.
func (r *responsesCall) send(kind string, fields obj) bool {
	fields["type"] = kind
	fields["sequence_number"] = r.seq
	r.seq++
	return r.s.send(kind, fields)
}

// serveResponses answers a Responses API request as an SSE stream.
func serveResponses(c *call) {
	if c.turn.Status != 0 {
		c.fail(openaiError(c.turn.Status))
		return
	}
	r := &responsesCall{call: c, s: c.stream()}
	r.s.errorEvent = func(s *stream, kind string) {
		s.write("error", obj{"type": "error", "code": kind, "message": "fakellm: scripted " + kind,
			"param": nil, "sequence_number": r.seq})
	}
	if !r.send("response.created", obj{"response": r.response("in_progress", nil, nil)}) ||
		!r.send("response.in_progress", obj{"response": r.response("in_progress", nil, nil)}) {
		return
	}
	var output []any
	for i, p := range c.turn.Parts {
		item, ok := r.item(i, p)
		if !ok {
			return
		}
		output = append(output, item)
	}
	status, kind := "completed", "response.completed"
	var incomplete any
	if c.turn.StopReason == "max_tokens" {
		status, kind = "incomplete", "response.incomplete"
		incomplete = obj{"reason": "max_output_tokens"}
	}
	resp := r.response(status, output, incomplete)
	u := c.usage
	resp["usage"] = obj{
		"input_tokens":          u.InputTokens + u.CacheReadTokens + u.CacheWriteTokens,
		"input_tokens_details":  obj{"cached_tokens": u.CacheReadTokens, "cache_write_tokens": u.CacheWriteTokens},
		"output_tokens":         u.OutputTokens,
		"output_tokens_details": obj{"reasoning_tokens": 0},
		"total_tokens":          u.InputTokens + u.CacheReadTokens + u.CacheWriteTokens + u.OutputTokens,
	}
	r.send(kind, obj{"response": resp})
}

// response is the response object carried by the lifecycle events.
func (r *responsesCall) response(status string, output []any, incomplete any) obj {
	if output == nil {
		output = []any{}
	}
	return obj{
		"id": fmt.Sprintf("resp_fake_%d", r.call.seq), "object": "response",
		"created_at": time.Now().Unix(), "status": status, "model": r.model,
		"output": output, "usage": nil, "error": nil, "incomplete_details": incomplete,
		"parallel_tool_calls": true, "tool_choice": "auto", "tools": []any{},
	}
}

// item streams part p as output item i and returns the finished item.
func (r *responsesCall) item(i int, p Part) (obj, bool) {
	id := fmt.Sprintf("%s_fake_%d_%d", map[PartKind]string{KindText: "msg", KindThinking: "rs", KindToolCall: "fc"}[p.Kind], r.call.seq, i)
	at := obj{"item_id": id, "output_index": i}
	with := func(more obj) obj {
		m := obj{}
		for k, v := range at {
			m[k] = v
		}
		for k, v := range more {
			m[k] = v
		}
		return m
	}
	var start, done obj
	var steps []func() bool
	switch p.Kind {
	case KindText:
		start = obj{"id": id, "type": "message", "status": "in_progress", "role": "assistant", "content": []any{}}
		part := obj{"type": "output_text", "text": p.Text, "annotations": []any{}}
		done = obj{"id": id, "type": "message", "status": "completed", "role": "assistant", "content": []any{part}}
		steps = append(steps, func() bool {
			return r.send("response.content_part.added", with(obj{"content_index": 0,
				"part": obj{"type": "output_text", "text": "", "annotations": []any{}}}))
		})
		for _, w := range words(p.Text) {
			steps = append(steps, func() bool {
				return r.send("response.output_text.delta", with(obj{"content_index": 0, "delta": w, "logprobs": []any{}}))
			})
		}
		steps = append(steps,
			func() bool {
				return r.send("response.output_text.done", with(obj{"content_index": 0, "text": p.Text, "logprobs": []any{}}))
			},
			func() bool { return r.send("response.content_part.done", with(obj{"content_index": 0, "part": part})) })
	case KindThinking:
		start = obj{"id": id, "type": "reasoning", "summary": []any{}}
		summary := obj{"type": "summary_text", "text": p.Text}
		done = obj{"id": id, "type": "reasoning", "summary": []any{summary}, "encrypted_content": signature(p.Text)}
		steps = append(steps, func() bool {
			return r.send("response.reasoning_summary_part.added", with(obj{"summary_index": 0,
				"part": obj{"type": "summary_text", "text": ""}}))
		})
		for _, w := range words(p.Text) {
			steps = append(steps, func() bool {
				return r.send("response.reasoning_summary_text.delta", with(obj{"summary_index": 0, "delta": w}))
			})
		}
		steps = append(steps,
			func() bool {
				return r.send("response.reasoning_summary_text.done", with(obj{"summary_index": 0, "text": p.Text}))
			},
			func() bool {
				return r.send("response.reasoning_summary_part.done", with(obj{"summary_index": 0, "part": summary}))
			})
	case KindToolCall:
		start = obj{"id": id, "type": "function_call", "status": "in_progress", "call_id": p.ID, "name": p.Name, "arguments": ""}
		done = obj{"id": id, "type": "function_call", "status": "completed", "call_id": p.ID, "name": p.Name, "arguments": p.input()}
		for _, a := range pieces(p.input(), 12) {
			steps = append(steps, func() bool {
				return r.send("response.function_call_arguments.delta", with(obj{"delta": a}))
			})
		}
		steps = append(steps, func() bool {
			return r.send("response.function_call_arguments.done", with(obj{"arguments": p.input(), "name": p.Name}))
		})
	}
	if !r.send("response.output_item.added", obj{"output_index": i, "item": start}) {
		return nil, false
	}
	for _, step := range steps {
		if !step() {
			return nil, false
		}
	}
	return done, r.send("response.output_item.done", obj{"output_index": i, "item": done})
}
