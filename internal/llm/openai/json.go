package openai

import (
	"encoding/json"
	"fmt"
)

// schemaMap decodes a tool's JSON schema for the SDK's parameter maps.
func schemaMap(schema json.RawMessage) (map[string]any, error) {
	if len(schema) == 0 || string(schema) == "null" {
		return map[string]any{"type": "object", "properties": map[string]any{}}, nil
	}
	var m map[string]any
	if err := json.Unmarshal(schema, &m); err != nil {
		return nil, fmt.Errorf("tool schema: %w", err)
	}
	return m, nil
}

// rawString decodes a JSON string value, "" for anything else.
func rawString(raw string) string {
	var s string
	if json.Unmarshal([]byte(raw), &s) != nil {
		return ""
	}
	return s
}
