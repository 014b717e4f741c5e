package openai

import (
	"encoding/json"
	"fmt"

	"github.com/openai/openai-go/v3/responses"

	"github.com/gantry-dev/gantry/internal/llm"
	"github.com/gantry-dev/gantry/internal/llm/reqbody"
)

// newChatCache returns the request-body cache of Chat Completions: the head is the
// encoding of the request with an empty message list, the system prompt its first
// message, and each message the encoding of the chat messages it becomes (a user
// message with tool results becomes several).
func newChatCache() *reqbody.Cache {
	return reqbody.New(reqbody.Encoder{
		ListKey: "messages",
		Head: func(req llm.Request) ([]byte, error) {
			req.System = "" // it opens the message list: see Prefix
			p, err := encodeChat(req)
			if err != nil {
				return nil, err
			}
			p.Messages = []chatMessage{}
			return marshalHead(p)
		},
		Prefix: func(req llm.Request) ([]json.RawMessage, error) {
			if req.System == "" {
				return nil, nil
			}
			return reqbody.Marshal(chatSystem(req.System))
		},
		Message: func(m llm.Message, _ bool) ([]json.RawMessage, error) {
			switch m.Role {
			case llm.RoleUser:
				return reqbody.Marshal(appendChatUser(nil, m)...)
			case llm.RoleAssistant:
				return reqbody.Marshal(chatAssistant(m))
			}
			return nil, fmt.Errorf("unknown role %q", m.Role)
		},
	})
}

// newResponsesCache returns the request-body cache of the Responses API: the head is
// the SDK's encoding of the parameters with an empty input list, each message the
// SDK's encoding of the input items it becomes.
func newResponsesCache() *reqbody.Cache {
	return reqbody.New(reqbody.Encoder{
		ListKey: "input",
		Head: func(req llm.Request) ([]byte, error) {
			p, err := encodeResponses(req)
			if err != nil {
				return nil, err
			}
			p.Input = responses.ResponseNewParamsInputUnion{OfInputItemList: responses.ResponseInputParam{}}
			return marshalHead(p)
		},
		Message: func(m llm.Message, _ bool) ([]json.RawMessage, error) {
			switch m.Role {
			case llm.RoleUser:
				return reqbody.Marshal(appendUserItems(nil, m)...)
			case llm.RoleAssistant:
				return reqbody.Marshal(appendAssistantItems(nil, m)...)
			}
			return nil, fmt.Errorf("unknown role %q", m.Role)
		},
	})
}

func marshalHead(p any) ([]byte, error) {
	b, err := json.Marshal(p)
	if err != nil {
		return nil, fmt.Errorf("encoding the request: %w", err)
	}
	return b, nil
}
