package openai

import (
	"encoding/json"
	"fmt"
)

// schemaMap decodes a tool's JSON schema for the parameters of a function tool.
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
