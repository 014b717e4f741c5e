package agent

import (
	"encoding/json"

	"github.com/gantry-dev/gantry/internal/llm"
)

// sanitizeToolInputs makes every tool_use input a JSON object, so the history can be
// sent back to any provider; the tool itself reports the malformed arguments.
func sanitizeToolInputs(bs []llm.Block) []llm.Block {
	for i, b := range bs {
		if b.Type != llm.BlockToolUse {
			continue
		}
		var obj map[string]json.RawMessage
		if len(b.Input) == 0 || json.Unmarshal(b.Input, &obj) != nil || obj == nil {
			bs[i].Input = json.RawMessage(`{}`)
			if len(b.Input) > 0 && string(b.Input) != "null" {
				raw, _ := json.Marshal(string(b.Input))
				bs[i].Input = json.RawMessage(`{"_unparsed_arguments":` + string(raw) + `}`)
			}
		}
	}
	return bs
}
