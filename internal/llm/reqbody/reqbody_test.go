package reqbody

import (
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/gantry-dev/gantry/internal/llm"
)

func textEncoder(calls *int) Encoder {
	return Encoder{
		ListKey: "messages",
		Head: func(req llm.Request) ([]byte, error) {
			return json.Marshal(map[string]any{"messages": []any{}, "model": req.Model, "system": req.System})
		},
		Prefix: func(req llm.Request) ([]json.RawMessage, error) {
			if req.System == "" {
				return nil, nil
			}
			return Marshal(map[string]string{"role": "system", "content": req.System})
		},
		Message: func(m llm.Message, last bool) ([]json.RawMessage, error) {
			*calls++
			if m.Text() == "bad" {
				return nil, errors.New("cannot encode")
			}
			if m.Text() == "" {
				return nil, nil // a message may become no element
			}
			return Marshal(map[string]any{"role": m.Role, "content": m.Text(), "last": last})
		},
	}
}

func msg(role llm.Role, text string) llm.Message {
	return llm.Message{Role: role, Content: []llm.Block{{Type: llm.BlockText, Text: text}}}
}

func TestBodyAssemblesAndReusesMessages(t *testing.T) {
	calls := 0
	c := New(textEncoder(&calls))
	msgs := []llm.Message{msg(llm.RoleUser, "a"), msg(llm.RoleAssistant, ""), msg(llm.RoleAssistant, "b"), msg(llm.RoleUser, "c")}
	b, err := c.Body(llm.Request{Model: "m", System: "s", Messages: msgs})
	if err != nil {
		t.Fatal(err)
	}
	want := `{"stream":true,"messages":[{"content":"s","role":"system"},{"content":"a","last":false,"role":"user"},{"content":"b","last":false,"role":"assistant"},{"content":"c","last":true,"role":"user"}],"model":"m","system":"s"}`
	if string(b) != want {
		t.Fatalf("got  %s\nwant %s", b, want)
	}
	if calls != 4 || c.Len() != 3 {
		t.Fatalf("calls %d, cached %d", calls, c.Len())
	}
	msgs = append(msgs, msg(llm.RoleAssistant, "d"))
	if _, err := c.Body(llm.Request{Model: "m", System: "s", Messages: msgs}); err != nil {
		t.Fatal(err)
	}
	if calls != 6 { // the former last message and the new one
		t.Fatalf("calls %d, want 6", calls)
	}
	// Equal content at another address is a different message: encoded again.
	copied := []llm.Message{msg(llm.RoleUser, "a")}
	if _, err := c.Body(llm.Request{Model: "m", Messages: append(copied, msg(llm.RoleUser, "z"))}); err != nil {
		t.Fatal(err)
	}
	if calls != 8 || c.Len() != 1 {
		t.Fatalf("calls %d, cached %d", calls, c.Len())
	}
}

func TestBodyErrors(t *testing.T) {
	calls := 0
	c := New(textEncoder(&calls))
	_, err := c.Body(llm.Request{Model: "m", Messages: []llm.Message{msg(llm.RoleUser, "ok"), msg(llm.RoleUser, "bad")}})
	if err == nil || !strings.Contains(err.Error(), "message 2: cannot encode") {
		t.Fatalf("err = %v", err)
	}
	enc := textEncoder(&calls)
	enc.Head = func(llm.Request) ([]byte, error) { return []byte(`{"model":"m"}`), nil }
	if _, err := New(enc).Body(llm.Request{}); err == nil || !strings.Contains(err.Error(), `no empty "messages" list`) {
		t.Fatalf("err = %v", err)
	}
}
