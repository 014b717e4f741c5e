package anthropic

import (
	"encoding/json"
	"fmt"

	"github.com/anthropics/anthropic-sdk-go/v2"

	"github.com/gantry-dev/gantry/internal/llm"
	"github.com/gantry-dev/gantry/internal/llm/reqbody"
)

// newBodyCache returns the request-body cache of the Messages API: the head is the
// SDK's encoding of the parameters with an empty message list (the tools written as
// the SDK writes them, tools.go), each message the SDK's encoding of its
// MessageParam (the last one carries the prompt-cache mark).
func newBodyCache() *reqbody.Cache {
	return reqbody.New(reqbody.Encoder{
		ListKey: "messages",
		Head: func(req llm.Request) ([]byte, error) {
			// The tools are written by appendTools (tools.go), the rest by the SDK.
			specs := req.Tools
			req.Tools = nil
			p, err := encodeRequest(req)
			if err != nil {
				return nil, err
			}
			p.Messages = []anthropic.MessageParam{}
			b, err := json.Marshal(p)
			if err != nil {
				return nil, fmt.Errorf("encoding the request: %w", err)
			}
			return appendTools(b, specs)
		},
		Message: func(m llm.Message, last bool) ([]json.RawMessage, error) {
			mp, err := encodeMessage(m, last)
			if err != nil {
				return nil, err
			}
			return reqbody.Marshal(mp)
		},
	})
}
