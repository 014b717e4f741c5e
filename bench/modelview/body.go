package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"sort"
	"strings"
)

// The APIs whose request bodies are read, by the provider names gantry gives them.
const (
	apiAnthropic = "anthropic"   // Anthropic Messages
	apiResponses = "openai"      // OpenAI Responses
	apiChat      = "openai-chat" // OpenAI Chat Completions
)

// request is one request body cut into the parts a model reads: the tools, the
// system prompt and the messages, each kept as the bytes that were sent.
type request struct {
	API      string
	Size     int // the whole body
	Tools    []toolDecl
	System   []json.RawMessage // Anthropic's system (string or blocks), Responses' instructions, leading system/developer messages
	Messages []json.RawMessage // the conversation after the system part
	Other    int               // bytes of every other field (model, stream, max_tokens, …)
}

// toolDecl is one declared tool.
type toolDecl struct {
	Name     string
	Raw      json.RawMessage
	Deferred bool // sent with defer_loading: true, so not in the prompt until found
	Server   bool // a tool the provider runs (Anthropic's tool_search_tool_*, Responses' tool_search, …)
}

// tokens is the estimate gantry's /context uses: four bytes a token, rounded up.
func tokens(bytes int) int { return (bytes + 3) / 4 }

// detectAPI tells the API of a body from the path it was posted to, or, with no path,
// from its fields.
func detectAPI(path string, top map[string]json.RawMessage) string {
	switch strings.TrimPrefix(path, "/v1") {
	case "/messages":
		return apiAnthropic
	case "/responses":
		return apiResponses
	case "/chat/completions":
		return apiChat
	}
	if _, ok := top["input"]; ok {
		return apiResponses
	}
	if _, ok := top["instructions"]; ok {
		return apiResponses
	}
	if _, ok := top["system"]; ok {
		return apiAnthropic
	}
	if _, ok := top["max_tokens"]; ok {
		if _, chat := top["stream_options"]; !chat {
			return apiAnthropic
		}
	}
	return apiChat
}

// parseRequest cuts a request body into its parts; path is where it was posted ("" to
// tell the API from the body alone).
func parseRequest(path string, body []byte) (*request, error) {
	var top map[string]json.RawMessage
	if err := json.Unmarshal(body, &top); err != nil {
		return nil, fmt.Errorf("reading a request body: %w", err)
	}
	r := &request{API: detectAPI(path, top), Size: len(body)}
	var msgKey string
	switch r.API {
	case apiAnthropic:
		msgKey = "messages"
		if s, ok := top["system"]; ok {
			r.System = append(r.System, s)
		}
	case apiResponses:
		msgKey = "input"
		if s, ok := top["instructions"]; ok {
			r.System = append(r.System, s)
		}
	default:
		msgKey = "messages"
	}
	if raw, ok := top[msgKey]; ok {
		var msgs []json.RawMessage
		if err := json.Unmarshal(raw, &msgs); err != nil {
			return nil, fmt.Errorf("reading the %s of a %s request: %w", msgKey, r.API, err)
		}
		// The system and developer messages before the first other one are the system
		// prompt of the OpenAI APIs.
		for len(msgs) > 0 && r.API != apiAnthropic && isSystem(msgs[0]) {
			tools, ok, err := additionalTools(msgs[0])
			if err != nil {
				return nil, err
			}
			if ok {
				r.Tools = append(r.Tools, tools...)
			} else {
				r.System = append(r.System, msgs[0])
			}
			msgs = msgs[1:]
		}
		r.Messages = msgs
	}
	if raw, ok := top["tools"]; ok {
		var tools []json.RawMessage
		if err := json.Unmarshal(raw, &tools); err != nil {
			return nil, fmt.Errorf("reading the tools of a %s request: %w", r.API, err)
		}
		for _, t := range tools {
			d, err := parseTool(t)
			if err != nil {
				return nil, err
			}
			r.Tools = append(r.Tools, d)
		}
	}
	r.Other = len(body)
	for _, k := range []string{"system", "instructions", msgKey, "tools"} {
		if v, ok := top[k]; ok && (k != "system" || r.API == apiAnthropic) && (k != "instructions" || r.API == apiResponses) {
			r.Other -= len(v)
		}
	}
	return r, nil
}

// additionalTools reads the tools of a Responses input item of type
// additional_tools (codex declares its tools there, in namespaces, rather than in
// the request's tools); ok is false for any other item.
func additionalTools(m json.RawMessage) (tools []toolDecl, ok bool, err error) {
	var v struct {
		Type  string            `json:"type"`
		Tools []json.RawMessage `json:"tools"`
	}
	if json.Unmarshal(m, &v) != nil || v.Type != "additional_tools" {
		return nil, false, nil
	}
	for _, raw := range v.Tools {
		var ns struct {
			Type  string            `json:"type"`
			Name  string            `json:"name"`
			Tools []json.RawMessage `json:"tools"`
		}
		if err := json.Unmarshal(raw, &ns); err != nil {
			return nil, true, fmt.Errorf("reading additional tools: %w", err)
		}
		if ns.Type != "namespace" {
			d, err := parseTool(raw)
			if err != nil {
				return nil, true, err
			}
			tools = append(tools, d)
			continue
		}
		for _, t := range ns.Tools {
			d, err := parseTool(t)
			if err != nil {
				return nil, true, err
			}
			d.Name = ns.Name + "." + d.Name
			tools = append(tools, d)
		}
	}
	return tools, true, nil
}

func isSystem(m json.RawMessage) bool {
	var v struct {
		Role string `json:"role"`
	}
	return json.Unmarshal(m, &v) == nil && (v.Role == "system" || v.Role == "developer")
}

// parseTool reads a tool's name and whether it is deferred or run by the provider.
func parseTool(raw json.RawMessage) (toolDecl, error) {
	var t struct {
		Type         string `json:"type"`
		Name         string `json:"name"`
		DeferLoading bool   `json:"defer_loading"`
		Function     *struct {
			Name string `json:"name"`
		} `json:"function"`
	}
	if err := json.Unmarshal(raw, &t); err != nil {
		return toolDecl{}, fmt.Errorf("reading a tool declaration: %w", err)
	}
	d := toolDecl{Name: t.Name, Raw: raw, Deferred: t.DeferLoading}
	if t.Function != nil && t.Function.Name != "" {
		d.Name = t.Function.Name
	}
	switch t.Type {
	case "", "function", "custom":
	default:
		d.Server = true
	}
	if d.Name == "" {
		d.Name = t.Type
	}
	return d, nil
}

// bytesOf adds up the sizes of raw parts.
func bytesOf(parts []json.RawMessage) int {
	n := 0
	for _, p := range parts {
		n += len(p)
	}
	return n
}

// declared is the bytes of the tools in the prompt (not deferred) and their number;
// deferred the same for the deferred ones.
func (r *request) declared() (n, size int) {
	for _, t := range r.Tools {
		if !t.Deferred {
			n, size = n+1, size+len(t.Raw)
		}
	}
	return n, size
}

func (r *request) deferred() (n, size int) {
	for _, t := range r.Tools {
		if t.Deferred {
			n, size = n+1, size+len(t.Raw)
		}
	}
	return n, size
}

// segment is one piece of the prompt's prefix: a tool, a system part or a message,
// with its bytes as sent and its canonical form (keys sorted, cache_control removed)
// for comparing.
type segment struct {
	Where string // "tools", "system" or "message N" (1-based)
	What  string // the tool's name or the message's role
	Size  int
	Canon string
}

// prefix lists the request's segments in the order a prompt cache reads them: the
// tools in the prompt (deferred ones are not), then the system, then the messages.
func (r *request) prefix() ([]segment, error) {
	var out []segment
	add := func(where, what string, raw json.RawMessage) error {
		c, err := canonical(raw)
		if err != nil {
			return err
		}
		out = append(out, segment{Where: where, What: what, Size: len(raw), Canon: c})
		return nil
	}
	for _, t := range r.Tools {
		if t.Deferred {
			continue
		}
		if err := add("tools", t.Name, t.Raw); err != nil {
			return nil, err
		}
	}
	for _, s := range r.System {
		// Anthropic's system as a string is the same prompt as one text block.
		if r.API == apiAnthropic && len(s) > 0 && s[0] == '"' {
			block, err := json.Marshal([]any{map[string]any{"type": "text", "text": json.RawMessage(s)}})
			if err != nil {
				return nil, err
			}
			c, err := canonical(block)
			if err != nil {
				return nil, err
			}
			out = append(out, segment{Where: "system", Size: len(s), Canon: c})
			continue
		}
		if err := add("system", "", s); err != nil {
			return nil, err
		}
	}
	for i, m := range r.Messages {
		if err := add(fmt.Sprintf("message %d", i+1), roleOf(m), m); err != nil {
			return nil, err
		}
	}
	return out, nil
}

// roleOf is a message's role, or its item type for Responses items without one.
func roleOf(m json.RawMessage) string {
	var v struct {
		Role string `json:"role"`
		Type string `json:"type"`
	}
	if json.Unmarshal(m, &v) != nil {
		return ""
	}
	if v.Role != "" {
		return v.Role
	}
	return v.Type
}

// canonical re-encodes a JSON value with sorted keys and without cache_control
// markers, which move from request to request by design.
func canonical(raw json.RawMessage) (string, error) {
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		return "", fmt.Errorf("reading a part of a request: %w", err)
	}
	b, err := json.Marshal(strip(v))
	if err != nil {
		return "", fmt.Errorf("encoding a part of a request: %w", err)
	}
	return string(b), nil
}

// strip removes cache_control markers and writes a message's text content in one
// form: a string is the same prompt as one text block holding it (Claude Code sends
// the latest user message as blocks, to mark it, and earlier ones as strings).
func strip(v any) any {
	switch x := v.(type) {
	case map[string]any:
		delete(x, "cache_control")
		if s, ok := x["content"].(string); ok && x["role"] != nil {
			x["content"] = []any{map[string]any{"type": "text", "text": s}}
		}
		for k, e := range x {
			x[k] = strip(e)
		}
	case []any:
		for i, e := range x {
			x[i] = strip(e)
		}
	}
	return v
}

// prefixBreak is where the prefix of one request stops being the start of the next.
type prefixBreak struct {
	Where, What string
	// Lost is the bytes of the earlier request from the break to its end: what a
	// prompt cache held and must write again.
	Lost int
	// Detail says what changed, for the tools: added, removed or changed names.
	Detail string
}

// comparePrefix tells whether a's prefix (tools, system, messages) is the start of
// b's, and if not where it breaks.
func comparePrefix(a, b []segment) *prefixBreak {
	for i, s := range a {
		if i < len(b) && b[i].Canon == s.Canon {
			continue
		}
		lost := 0
		for _, r := range a[i:] {
			lost += r.Size
		}
		br := &prefixBreak{Where: s.Where, What: s.What, Lost: lost}
		switch {
		case s.Where == "tools" || i < len(b) && b[i].Where == "tools":
			// A tool removed, changed or added (at the end of the list, where the
			// earlier request had its system): the tools broke.
			br.Where, br.Detail = "tools", toolChange(a, b)
		case i < len(b) && b[i].Where != s.Where:
			br.Detail = fmt.Sprintf("now %s %s", b[i].Where, b[i].What)
		}
		return br
	}
	return nil
}

// toolChange names the tools added, removed and changed between two prefixes.
func toolChange(a, b []segment) string {
	tools := func(ss []segment) map[string]string {
		m := map[string]string{}
		for _, s := range ss {
			if s.Where == "tools" {
				m[s.What] = s.Canon
			}
		}
		return m
	}
	ta, tb := tools(a), tools(b)
	var added, removed, changed []string
	for n, c := range ta {
		switch cb, ok := tb[n]; {
		case !ok:
			removed = append(removed, n)
		case cb != c:
			changed = append(changed, n)
		}
	}
	for n := range tb {
		if _, ok := ta[n]; !ok {
			added = append(added, n)
		}
	}
	var parts []string
	for _, p := range []struct {
		verb  string
		names []string
	}{{"removed", removed}, {"added", added}, {"changed", changed}} {
		if len(p.names) > 0 {
			sort.Strings(p.names)
			parts = append(parts, p.verb+" "+strings.Join(p.names, ", "))
		}
	}
	if len(parts) == 0 {
		return "reordered"
	}
	return strings.Join(parts, "; ")
}

// toolResults returns the text of every tool result in a request, by call id.
func toolResults(r *request) (map[string]string, error) {
	out := map[string]string{}
	for _, m := range r.Messages {
		var v struct {
			Role       string          `json:"role"`
			Type       string          `json:"type"`
			Content    json.RawMessage `json:"content"`
			ToolCallID string          `json:"tool_call_id"`
			CallID     string          `json:"call_id"`
			Output     json.RawMessage `json:"output"`
		}
		if err := json.Unmarshal(m, &v); err != nil {
			return nil, fmt.Errorf("reading a message: %w", err)
		}
		switch {
		case r.API == apiResponses && v.Type == "function_call_output":
			out[v.CallID] = textOf(v.Output)
		case r.API == apiChat && v.Role == "tool":
			out[v.ToolCallID] = textOf(v.Content)
		case r.API == apiAnthropic && v.Role == "user":
			var blocks []struct {
				Type      string          `json:"type"`
				ToolUseID string          `json:"tool_use_id"`
				Content   json.RawMessage `json:"content"`
			}
			if json.Unmarshal(v.Content, &blocks) != nil {
				continue // a plain string: no tool result
			}
			for _, b := range blocks {
				if b.Type == "tool_result" {
					out[b.ToolUseID] = textOf(b.Content)
				}
			}
		}
	}
	return out, nil
}

// textOf is the text of a result's content: a string, or the text of its blocks.
func textOf(raw json.RawMessage) string {
	var s string
	if json.Unmarshal(raw, &s) == nil {
		return s
	}
	var blocks []struct {
		Text string `json:"text"`
	}
	if json.Unmarshal(raw, &blocks) != nil {
		return ""
	}
	var b strings.Builder
	for _, bl := range blocks {
		b.WriteString(bl.Text)
	}
	return b.String()
}
