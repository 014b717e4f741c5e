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

// item streams part p as output item i: added, the part's own events, done. It
// returns the finished item.
func (r *responsesCall) item(i int, p Part) (obj, bool) {
	id := fmt.Sprintf("%s_fake_%d_%d", map[PartKind]string{KindText: "msg", KindThinking: "rs", KindToolCall: "fc", KindToolSearch: "tsc", KindToolFound: "tso"}[p.Kind], r.call.seq, i)
	at := itemRef{r: r, id: id, index: i}
	var start, done obj
	var body func(itemRef) bool
	switch p.Kind {
	case KindText:
		start = obj{"id": id, "type": "message", "status": "in_progress", "role": "assistant", "content": []any{}}
		done = obj{"id": id, "type": "message", "status": "completed", "role": "assistant",
			"content": []any{outputText(p.Text)}}
		body = p.textEvents
	case KindThinking:
		start = obj{"id": id, "type": "reasoning", "summary": []any{}}
		done = obj{"id": id, "type": "reasoning", "summary": []any{summaryText(p.Text)}, "encrypted_content": signature(p.Text)}
		body = p.reasoningEvents
	case KindToolSearch:
		start = obj{"id": id, "type": "tool_search_call", "status": "in_progress", "execution": "server", "call_id": p.ID, "arguments": obj{}}
		done = obj{"id": id, "type": "tool_search_call", "status": "completed", "execution": "server", "call_id": p.ID,
			"arguments": obj{"query": p.Text}}
		body = func(itemRef) bool { return true }
	case KindToolFound:
		tools := []any{}
		for _, n := range p.Found {
			tools = append(tools, obj{"type": "function", "name": n, "parameters": obj{"type": "object"}, "strict": false, "defer_loading": true})
		}
		start = obj{"id": id, "type": "tool_search_output", "status": "in_progress", "execution": "server", "call_id": p.ID, "tools": []any{}}
		done = obj{"id": id, "type": "tool_search_output", "status": "completed", "execution": "server", "call_id": p.ID, "tools": tools}
		body = func(itemRef) bool { return true }
	case KindToolCall:
		start = obj{"id": id, "type": "function_call", "status": "in_progress", "call_id": p.ID, "name": p.Name, "arguments": ""}
		done = obj{"id": id, "type": "function_call", "status": "completed", "call_id": p.ID, "name": p.Name, "arguments": p.input()}
		body = p.argumentEvents
	}
	ok := r.send("response.output_item.added", obj{"output_index": i, "item": start}) &&
		body(at) &&
		r.send("response.output_item.done", obj{"output_index": i, "item": done})
	return done, ok
}

// itemRef sends the events of one output item, which all carry its id and index.
type itemRef struct {
	r     *responsesCall
	id    string
	index int
}

func (a itemRef) send(kind string, fields obj) bool {
	fields["item_id"] = a.id
	fields["output_index"] = a.index
	return a.r.send(kind, fields)
}

func outputText(text string) obj {
	return obj{"type": "output_text", "text": text, "annotations": []any{}}
}

func summaryText(text string) obj { return obj{"type": "summary_text", "text": text} }

func (p Part) textEvents(a itemRef) bool {
	if !a.send("response.content_part.added", obj{"content_index": 0, "part": outputText("")}) {
		return false
	}
	for w := range p.chunks() {
		if !a.send("response.output_text.delta", obj{"content_index": 0, "delta": w, "logprobs": []any{}}) {
			return false
		}
	}
	return a.send("response.output_text.done", obj{"content_index": 0, "text": p.Text, "logprobs": []any{}}) &&
		a.send("response.content_part.done", obj{"content_index": 0, "part": outputText(p.Text)})
}

func (p Part) reasoningEvents(a itemRef) bool {
	if !a.send("response.reasoning_summary_part.added", obj{"summary_index": 0, "part": summaryText("")}) {
		return false
	}
	for _, w := range words(p.Text) {
		if !a.send("response.reasoning_summary_text.delta", obj{"summary_index": 0, "delta": w}) {
			return false
		}
	}
	return a.send("response.reasoning_summary_text.done", obj{"summary_index": 0, "text": p.Text}) &&
		a.send("response.reasoning_summary_part.done", obj{"summary_index": 0, "part": summaryText(p.Text)})
}

func (p Part) argumentEvents(a itemRef) bool {
	for _, piece := range pieces(p.input(), 12) {
		if !a.send("response.function_call_arguments.delta", obj{"delta": piece}) {
			return false
		}
	}
	return a.send("response.function_call_arguments.done", obj{"arguments": p.input(), "name": p.Name})
}
