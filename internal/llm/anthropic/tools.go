package anthropic

import (
	"bytes"
	"encoding/json"
	"fmt"

	"github.com/anthropics/anthropic-sdk-go/v2"

	"github.com/gantry-dev/gantry/internal/llm"
)

// appendTools puts the request's tool list into head, the SDK's encoding of a request
// without tools, as the SDK would have encoded it: the same keys in the same order
// (input_schema, name, defer_loading, description, cache_control), the schema
// compacted and HTML-escaped as encoding/json leaves raw JSON. The SDK's encoders
// check and re-compact a tool's schema once for each level of its parameter types,
// about a millisecond for gantry's tools on every new head; the first request of a
// session waits for it. tools_test.go holds the two encodings equal.
func appendTools(head []byte, specs []llm.ToolSpec) ([]byte, error) {
	if len(specs) == 0 {
		return head, nil
	}
	if len(head) < 2 || head[len(head)-1] != '}' {
		return nil, fmt.Errorf("encoding the request: the head %.40q does not end an object", head)
	}
	var buf bytes.Buffer
	buf.Grow(len(head) + 2048*len(specs))
	buf.Write(head[:len(head)-1])
	buf.WriteString(`,"tools":[`)
	marked, deferred := false, false
	for i, t := range specs {
		if i > 0 {
			buf.WriteByte(',')
		}
		mark := t.Breakpoint && !t.Defer && !marked // markTools: the first such tool
		marked = marked || mark
		deferred = deferred || t.Defer
		if err := writeTool(&buf, t, mark); err != nil {
			return nil, fmt.Errorf("encoding the request: tool %s: %w", t.Name, err)
		}
	}
	if deferred {
		search, err := json.Marshal(anthropic.ToolUnionParam{OfToolSearchToolBm25_20251119: &anthropic.ToolSearchToolBm25_20251119Param{
			Type: anthropic.ToolSearchToolBm25_20251119TypeToolSearchToolBm25_20251119}})
		if err != nil {
			return nil, fmt.Errorf("encoding the request: %w", err)
		}
		buf.WriteByte(',')
		buf.Write(search)
	}
	buf.WriteString("]}")
	return buf.Bytes(), nil
}

// writeTool writes one tool as the SDK's ToolParam encodes (encodeTool's fields).
func writeTool(buf *bytes.Buffer, t llm.ToolSpec, mark bool) error {
	buf.WriteByte('{')
	if len(t.Schema) > 0 && string(t.Schema) != "null" {
		var compact bytes.Buffer
		if err := json.Compact(&compact, t.Schema); err != nil {
			return fmt.Errorf("its schema: %w", err)
		}
		buf.WriteString(`"input_schema":`)
		json.HTMLEscape(buf, compact.Bytes())
		buf.WriteByte(',')
	}
	buf.WriteString(`"name":`)
	if err := writeString(buf, t.Name); err != nil {
		return err
	}
	if t.Defer {
		buf.WriteString(`,"defer_loading":true`)
	}
	if t.Description != "" {
		buf.WriteString(`,"description":`)
		if err := writeString(buf, t.Description); err != nil {
			return err
		}
	}
	if mark {
		buf.WriteString(`,"cache_control":{"type":"ephemeral"}`)
	}
	buf.WriteByte('}')
	return nil
}

// writeString writes s as a JSON string, escaped as encoding/json escapes.
func writeString(buf *bytes.Buffer, s string) error {
	b, err := json.Marshal(s)
	if err != nil {
		return err
	}
	buf.Write(b)
	return nil
}
