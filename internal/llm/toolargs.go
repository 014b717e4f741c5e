package llm

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
)

// ToolInput reads the arguments text of a tool call as the model sent it. Empty or
// null arguments are {}. Valid JSON is the input. Anything else is not run: input
// is {} and raw keeps the text, for the history and to send back verbatim.
func ToolInput(args []byte) (input json.RawMessage, raw string) {
	t := bytes.TrimSpace(args)
	if len(t) == 0 || string(t) == "null" {
		return json.RawMessage(`{}`), ""
	}
	if json.Valid(t) {
		return append(json.RawMessage(nil), args...), ""
	}
	return json.RawMessage(`{}`), string(args)
}

// ArgumentsError is the sentence telling the model that the arguments of its call
// b were not valid JSON (b.RawInput is set), with the parser's reason and position.
func ArgumentsError(b Block) string {
	why := "they could not be parsed"
	var v any
	err := json.Unmarshal([]byte(b.RawInput), &v)
	var syn *json.SyntaxError
	switch {
	case errors.As(err, &syn):
		why = fmt.Sprintf("%s at byte %d of %d", syn.Error(), syn.Offset, len(b.RawInput))
	case err != nil:
		why = err.Error()
	}
	return fmt.Sprintf("The arguments of this %s call were not valid JSON (%s), so the tool was not run. Send the call again with its arguments as one JSON object.",
		b.ToolName, why)
}

// UnparsedInput is how a call whose arguments were not JSON (raw) is sent back to
// a model API: the object {"_unparsed_arguments": raw}. Anthropic's tool_use input
// must be an object, and OpenAI-compatible servers (vLLM, proxies) refuse a
// history whose arguments string is not JSON, with a 400 on every later request;
// wrapped, the model reads back exactly what it wrote and every API accepts it.
func UnparsedInput(raw string) json.RawMessage {
	b, err := json.Marshal(map[string]string{"_unparsed_arguments": raw})
	if err != nil { // a map of strings always encodes
		return json.RawMessage(`{}`)
	}
	return b
}
