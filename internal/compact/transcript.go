package compact

import (
	"fmt"
	"strings"

	"github.com/gantry-dev/gantry/internal/llm"
)

// kind says what a piece of the transcript is, which decides how readily it is cut.
type kind int

const (
	kindText   kind = iota // what the user or the model wrote
	kindCall               // a tool call's input
	kindResult             // a tool result's text
)

// piece is one block of the transcript: its body, which bounding may cut, framed by
// a head and a tail that it never touches.
type piece struct {
	kind       kind
	head, tail string
	body       string
}

func (p piece) String() string { return p.head + p.body + p.tail }

// turn is the pieces one role wrote in a row.
type turn struct {
	role   llm.Role
	pieces []piece
}

// transcript turns history into text the model can read without tool definitions.
// A request without tools may not carry tool_use or tool_result blocks (Anthropic and
// Bedrock refuse them), and then no pairing of calls and results needs to hold either:
// each call and result becomes a tagged text piece, a call without a result is marked
// as not run, thinking is left out (it cannot be sent as text, and providers drop it
// from earlier turns anyway), and images are named, not sent. Consecutive messages of
// one role are merged and a transcript never starts with the assistant, so any
// provider accepts the messages built from it.
func transcript(history []llm.Message) []turn {
	names := map[string]string{}  // tool call id → tool name
	answered := map[string]bool{} // tool call ids that have a result
	for _, m := range history {
		for _, b := range m.Content {
			switch b.Type {
			case llm.BlockToolUse:
				names[b.ToolCallID] = b.ToolName
			case llm.BlockToolResult:
				answered[b.ToolCallID] = true
			}
		}
	}
	var turns []turn
	for _, m := range history {
		var ps []piece
		for _, b := range m.Content {
			if p, ok := convert(b, names, answered); ok {
				ps = append(ps, p)
			}
		}
		if len(ps) == 0 {
			continue
		}
		role := llm.RoleUser
		if m.Role == llm.RoleAssistant {
			role = llm.RoleAssistant
		}
		if n := len(turns); n > 0 && turns[n-1].role == role {
			turns[n-1].pieces = append(turns[n-1].pieces, ps...)
			continue
		}
		if len(turns) == 0 && role == llm.RoleAssistant {
			turns = append(turns, turn{role: llm.RoleUser, pieces: []piece{{kind: kindText, head: "[The conversation starts with the assistant's message below.]"}}})
		}
		turns = append(turns, turn{role: role, pieces: ps})
	}
	return turns
}

// convert renders one block as a piece; false for a block that is left out.
func convert(b llm.Block, names map[string]string, answered map[string]bool) (piece, bool) {
	switch b.Type {
	case llm.BlockText:
		if strings.TrimSpace(b.Text) == "" {
			return piece{}, false
		}
		return piece{kind: kindText, body: b.Text}, true
	case llm.BlockImage:
		return piece{kind: kindText, head: "[an image was attached here; it is not shown again]"}, true
	case llm.BlockToolUse:
		tail := "\n</tool_call>"
		if !answered[b.ToolCallID] {
			tail = "\n</tool_call>\n[This tool call was never run: the conversation stopped before its result.]"
		}
		return piece{kind: kindCall, head: fmt.Sprintf("<tool_call name=%q id=%q>\n", b.ToolName, b.ToolCallID), body: string(b.Input), tail: tail}, true
	case llm.BlockToolResult:
		attrs := fmt.Sprintf("name=%q id=%q", names[b.ToolCallID], b.ToolCallID)
		if b.IsError {
			attrs += ` error="true"`
		}
		tail := "\n</tool_result>"
		if n := len(b.Images); n > 0 {
			tail = fmt.Sprintf("\n[%d image(s) returned; not shown again]\n</tool_result>", n)
		}
		return piece{kind: kindResult, head: "<tool_result " + attrs + ">\n", body: b.Text, tail: tail}, true
	}
	return piece{}, false // thinking, and kinds this package does not know
}

// messages builds the request's messages from the transcript, with text as the last
// user message: appended to the last turn when that is the user's, so that roles
// alternate.
func messages(turns []turn, text string) []llm.Message {
	msgs := make([]llm.Message, 0, len(turns)+1)
	for _, t := range turns {
		m := llm.Message{Role: t.role}
		for _, p := range t.pieces {
			m.Content = append(m.Content, llm.Block{Type: llm.BlockText, Text: p.String()})
		}
		msgs = append(msgs, m)
	}
	last := llm.Block{Type: llm.BlockText, Text: text}
	if n := len(msgs); n > 0 && msgs[n-1].Role == llm.RoleUser {
		msgs[n-1].Content = append(msgs[n-1].Content, last)
		return msgs
	}
	return append(msgs, llm.Message{Role: llm.RoleUser, Content: []llm.Block{last}})
}
