package session

import (
	"encoding/json"
	"fmt"
	"os"
	"reflect"
	"testing"

	"github.com/gantry-dev/gantry/internal/llm"
)

func mustCreate(t testing.TB, st *Store, cwd string) *Session {
	t.Helper()
	s, err := st.Create(Meta{Cwd: cwd})
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func usage(in, out int64) llm.Usage { return llm.Usage{InputTokens: in, OutputTokens: out} }

func userText(s string) llm.Message {
	return llm.Message{Role: llm.RoleUser, Content: []llm.Block{{Type: llm.BlockText, Text: s}}}
}

func assistantText(s string) llm.Message {
	return llm.Message{Role: llm.RoleAssistant, Content: []llm.Block{{Type: llm.BlockText, Text: s}}}
}

func call(id, tool string) llm.Block {
	return llm.Block{Type: llm.BlockToolUse, ToolCallID: id, ToolName: tool, Input: json.RawMessage(`{"command":"ls"}`)}
}

func result(id, text string) llm.Block {
	return llm.Block{Type: llm.BlockToolResult, ToolCallID: id, Text: text}
}

func interrupted(id string) llm.Block {
	return llm.Block{Type: llm.BlockToolResult, ToolCallID: id, Text: Interrupted, IsError: true}
}

func assistant(blocks ...llm.Block) llm.Message {
	return llm.Message{Role: llm.RoleAssistant, Content: blocks}
}

func user(blocks ...llm.Block) llm.Message {
	return llm.Message{Role: llm.RoleUser, Content: blocks}
}

// conversation is a well-formed history using every kind of block.
func conversation() []llm.Message {
	return []llm.Message{
		userText("list the files"),
		assistant(
			llm.Block{Type: llm.BlockThinking, Text: "hmm", Signature: "sig"},
			call("c1", "bash"),
			call("c2", "read_file"),
		),
		user(
			result("c1", "a.go\nb.go"),
			llm.Block{Type: llm.BlockToolResult, ToolCallID: "c2", Text: "no such file", IsError: true,
				Images: []llm.Image{{MediaType: "image/png", Data: []byte{0x89, 'P', 'N', 'G'}}}},
		),
		assistantText("There are two files."),
	}
}

func assertMessages(t *testing.T, got, want []llm.Message) {
	t.Helper()
	if !reflect.DeepEqual(got, want) {
		t.Errorf("messages differ:\n got %s\nwant %s", dump(got), dump(want))
	}
}

func dump(msgs []llm.Message) string {
	b, err := json.MarshalIndent(msgs, "", " ")
	if err != nil {
		return fmt.Sprint(msgs)
	}
	return string(b)
}

func removeAll(dir string) error { return os.RemoveAll(dir) }
