package anthropic

import (
	"bytes"
	"encoding/json"
	"fmt"
	"sync"

	"github.com/anthropics/anthropic-sdk-go/v2"

	"github.com/gantry-dev/gantry/internal/llm"
)

// bodyCache builds the JSON body of a request without re-encoding, turn after turn,
// what the previous request already held. The SDK's reflective encoder costs a few
// microseconds per message, which grows with the conversation; here each message is
// encoded once, when it is first sent as an earlier message, and the head of the
// request (model, system prompt, tools) once while it does not change.
//
// A message is known by the identity of its content (llm.Request: messages are
// immutable once sent). Entries a request does not use are dropped, so the cache
// never outgrows one conversation.
type bodyCache struct {
	mu       sync.Mutex
	messages map[cacheKey]json.RawMessage
	headKey  *headKey
	head     []byte
}

type cacheKey struct {
	first *llm.Block
	n     int
	role  llm.Role
}

type headKey struct {
	model     string
	maxTokens int
	system    string
	tools     []llm.ToolSpec
}

func (k *headKey) equal(o headKey) bool {
	if k.model != o.model || k.maxTokens != o.maxTokens || k.system != o.system || len(k.tools) != len(o.tools) {
		return false
	}
	for i, t := range k.tools {
		u := o.tools[i]
		if t.Name != u.Name || t.Description != u.Description || !bytes.Equal(t.Schema, u.Schema) {
			return false
		}
	}
	return true
}

// emptyMessages is how the SDK writes the head's empty message list; the body puts
// the messages there. It is the first occurrence: the SDK writes messages before
// system and tools, and inside a JSON string the quotes would be escaped.
var emptyMessages = []byte(`"messages":[]`)

// body returns the request's JSON body.
func (c *bodyCache) body(req llm.Request) ([]byte, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	head, err := c.headFor(req)
	if err != nil {
		return nil, err
	}
	at := bytes.Index(head, emptyMessages)
	if at < 0 {
		return nil, fmt.Errorf("encoding the request: no message list in %.80s", head)
	}
	next := make(map[cacheKey]json.RawMessage, len(req.Messages))
	var buf bytes.Buffer
	buf.Grow(len(head) + 256*len(req.Messages))
	// "stream" comes first: the SDK sets it again with sjson, which then stops at the
	// first key instead of scanning the whole conversation for it.
	buf.WriteString(`{"stream":true,`)
	buf.Write(head[1:at])
	buf.WriteString(`"messages":[`)
	for i, m := range req.Messages {
		if i > 0 {
			buf.WriteByte(',')
		}
		last := i == len(req.Messages)-1
		key := cacheKey{n: len(m.Content), role: m.Role}
		if len(m.Content) > 0 {
			key.first = &m.Content[0]
		}
		raw, ok := c.messages[key]
		if !ok || last || key.first == nil {
			mp, err := encodeMessage(m, last)
			if err != nil {
				return nil, messageError(i, err)
			}
			if raw, err = json.Marshal(mp); err != nil {
				return nil, messageError(i, err)
			}
		}
		if !last && key.first != nil {
			next[key] = raw
		}
		buf.Write(raw)
	}
	buf.WriteByte(']')
	buf.Write(head[at+len(emptyMessages):])
	c.messages = next
	return buf.Bytes(), nil
}

// headFor returns the request encoded with an empty message list, reusing the last
// one when model, limits, system prompt and tools are the same.
func (c *bodyCache) headFor(req llm.Request) ([]byte, error) {
	key := headKey{req.Model, req.MaxTokens, req.System, req.Tools}
	if c.headKey != nil && c.headKey.equal(key) {
		return c.head, nil
	}
	p, err := encodeRequest(llm.Request{Model: req.Model, MaxTokens: req.MaxTokens, System: req.System, Tools: req.Tools})
	if err != nil {
		return nil, err
	}
	p.Messages = []anthropic.MessageParam{}
	head, err := json.Marshal(p)
	if err != nil {
		return nil, fmt.Errorf("encoding the request: %w", err)
	}
	key.tools = append([]llm.ToolSpec(nil), req.Tools...)
	c.headKey, c.head = &key, head
	return head, nil
}
