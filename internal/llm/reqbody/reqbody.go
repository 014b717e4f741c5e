// Package reqbody builds the JSON body of a model request without re-encoding, turn
// after turn, what the previous request already held. The official SDKs encode
// parameters through reflective encoders that cost microseconds per message, so a
// conversation's encoding grows with every turn; here each message is encoded once,
// and the head of the request (model, limits, system prompt, tools) once while it
// does not change. The provider's encoder still encodes everything, the head and each
// message through its own types (the SDK's, or its own wire types); only the
// assembly is ours.
//
// A message is known by the identity of its content (llm.Request: messages are
// immutable once sent). Entries a request does not use are dropped, so a cache never
// outgrows one conversation.
package reqbody

import (
	"bytes"
	"encoding/json"
	"fmt"
	"sync"

	"github.com/gantry-dev/gantry/internal/llm"
)

// Encoder says how a provider's request is written.
type Encoder struct {
	// ListKey names the array the conversation goes into ("messages", "input").
	ListKey string
	// Head encodes the request's model, limits, system prompt and tools, with the
	// conversation as an empty array under ListKey (req.Messages is nil).
	Head func(req llm.Request) ([]byte, error)
	// Prefix returns the elements that open the array before the conversation (a
	// chat system message), or nil.
	Prefix func(req llm.Request) ([]json.RawMessage, error)
	// Message encodes one message as zero or more array elements; last is true for
	// the conversation's final message, which is never taken from the cache.
	Message func(m llm.Message, last bool) ([]json.RawMessage, error)
}

// Cache builds bodies with an Encoder. It is safe for concurrent use.
type Cache struct {
	enc Encoder

	mu       sync.Mutex
	messages map[key][]byte
	head     *head
}

type key struct {
	first *llm.Block
	n     int
	role  llm.Role
}

type head struct {
	model     string
	maxTokens int
	system    string
	cacheKey  string
	tools     []llm.ToolSpec
	body      []byte // the encoded head
	prefix    []byte // the prefix elements, comma-joined
}

func (h *head) matches(req llm.Request) bool {
	if h.model != req.Model || h.maxTokens != req.MaxTokens || h.system != req.System || h.cacheKey != req.CacheKey || len(h.tools) != len(req.Tools) {
		return false
	}
	for i, t := range h.tools {
		u := req.Tools[i]
		if t.Name != u.Name || t.Description != u.Description || !bytes.Equal(t.Schema, u.Schema) || t.Defer != u.Defer || t.Breakpoint != u.Breakpoint {
			return false
		}
	}
	return true
}

// New returns an empty cache for enc.
func New(enc Encoder) *Cache { return &Cache{enc: enc} }

// Body returns the JSON body of req, with "stream": true as its first key (the SDKs
// set it again with sjson, which then stops at the first key instead of scanning the
// whole conversation for it).
func (c *Cache) Body(req llm.Request) ([]byte, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	h, err := c.headFor(req)
	if err != nil {
		return nil, err
	}
	marker := []byte(`"` + c.enc.ListKey + `":[]`)
	at := bytes.Index(h.body, marker)
	if at < 0 || len(h.body) < 2 || h.body[0] != '{' {
		return nil, fmt.Errorf("encoding the request: no empty %q list in %.80s", c.enc.ListKey, h.body)
	}
	next := make(map[key][]byte, len(req.Messages))
	var buf bytes.Buffer
	buf.Grow(len(h.body) + 256*len(req.Messages))
	buf.WriteString(`{"stream":true`)
	if rest := bytes.TrimSpace(h.body[1:at]); len(rest) > 0 {
		buf.WriteByte(',')
		buf.Write(rest)
	} else {
		buf.WriteByte(',')
	}
	buf.WriteString(`"` + c.enc.ListKey + `":[`)
	sep := false
	write := func(frag []byte) {
		if len(frag) == 0 {
			return
		}
		if sep {
			buf.WriteByte(',')
		}
		buf.Write(frag)
		sep = true
	}
	write(h.prefix)
	for i, m := range req.Messages {
		last := i == len(req.Messages)-1
		k := key{n: len(m.Content), role: m.Role}
		if len(m.Content) > 0 {
			k.first = &m.Content[0]
		}
		frag, ok := c.messages[k]
		if !ok || last || k.first == nil {
			elems, err := c.enc.Message(m, last)
			if err != nil {
				return nil, fmt.Errorf("message %d: %w", i+1, err)
			}
			frag = bytes.Join(rawBytes(elems), []byte(","))
		}
		if !last && k.first != nil {
			next[k] = frag
		}
		write(frag)
	}
	buf.WriteByte(']')
	buf.Write(h.body[at+len(marker):])
	c.messages = next
	return buf.Bytes(), nil
}

func (c *Cache) headFor(req llm.Request) (*head, error) {
	if c.head != nil && c.head.matches(req) {
		return c.head, nil
	}
	bare := llm.Request{Model: req.Model, MaxTokens: req.MaxTokens, System: req.System, Tools: req.Tools, CacheKey: req.CacheKey}
	body, err := c.enc.Head(bare)
	if err != nil {
		return nil, err
	}
	var prefix []byte
	if c.enc.Prefix != nil {
		elems, err := c.enc.Prefix(bare)
		if err != nil {
			return nil, err
		}
		prefix = bytes.Join(rawBytes(elems), []byte(","))
	}
	c.head = &head{model: req.Model, maxTokens: req.MaxTokens, system: req.System, cacheKey: req.CacheKey,
		tools: append([]llm.ToolSpec(nil), req.Tools...), body: body, prefix: prefix}
	return c.head, nil
}

func rawBytes(elems []json.RawMessage) [][]byte {
	out := make([][]byte, len(elems))
	for i, e := range elems {
		out[i] = e
	}
	return out
}

// Marshal encodes each value with encoding/json (which calls the SDK types' own
// MarshalJSON, where they have one), for Encoder.Message and Encoder.Prefix.
func Marshal[T any](vals ...T) ([]json.RawMessage, error) {
	out := make([]json.RawMessage, 0, len(vals))
	for _, v := range vals {
		b, err := json.Marshal(v)
		if err != nil {
			return nil, err
		}
		out = append(out, b)
	}
	return out, nil
}

// Len returns how many messages the cache holds the encoding of.
func (c *Cache) Len() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return len(c.messages)
}
