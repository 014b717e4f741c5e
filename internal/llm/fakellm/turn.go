package fakellm

import (
	"iter"
	"time"

	"github.com/gantry-dev/gantry/internal/llm"
)

// PartKind names the kind of a Part.
type PartKind string

// The part kinds.
const (
	KindText     PartKind = "text"
	KindThinking PartKind = "thinking"
	KindToolCall PartKind = "tool_call"
	// KindToolSearch and KindToolFound are the API's own tool search (Anthropic's
	// server_tool_use and tool_search_tool_result blocks, the Responses API's
	// tool_search_call and tool_search_output items); Chat Completions has none and
	// streams nothing for them.
	KindToolSearch PartKind = "tool_search"
	KindToolFound  PartKind = "tool_found"
)

// Part is one piece of a scripted model response.
type Part struct {
	Kind PartKind
	// Text of a text or thinking part.
	Text string
	// ID, Name and Input (raw JSON, "" for no arguments) of a tool call; ID and
	// Text (the query) of a tool search.
	ID, Name, Input string
	// Found names the tools a tool search's result loads.
	Found []string
	// Endless streams a text part's Text again and again, never ending, until the
	// client goes away or the server closes (EndlessText).
	Endless bool
}

// EndlessText is a text part that never ends: s streamed again and again.
func EndlessText(s string) Part { return Part{Kind: KindText, Text: s, Endless: true} }

// chunks are the deltas of a text or thinking part: a few words each, repeated
// for ever when the part is Endless.
func (p Part) chunks() iter.Seq[string] {
	return func(yield func(string) bool) {
		for {
			for _, w := range words(p.Text) {
				if !yield(w) {
					return
				}
			}
			if !p.Endless || p.Text == "" {
				return
			}
		}
	}
}

// ToolSearch is the API searching its deferred tools for query (the search's id).
func ToolSearch(id, query string) Part { return Part{Kind: KindToolSearch, ID: id, Text: query} }

// ToolFound is the result of the API's tool search id: it loads the tools named.
func ToolFound(id string, names ...string) Part {
	return Part{Kind: KindToolFound, ID: id, Found: names}
}

// Text is a part of answer text.
func Text(s string) Part { return Part{Kind: KindText, Text: s} }

// Thinking is a part of reasoning text.
func Thinking(s string) Part { return Part{Kind: KindThinking, Text: s} }

// ToolCall is a call of the tool name with the arguments inputJSON.
func ToolCall(id, name, inputJSON string) Part {
	return Part{Kind: KindToolCall, ID: id, Name: name, Input: inputJSON}
}

// Turn is one model response, the answer to one request. A Turn with Status set is
// an HTTP failure instead; CutAfter, StallAfter and StreamError break the stream.
type Turn struct {
	Parts []Part
	// StopReason overrides the stop reason, in Anthropic's words ("end_turn",
	// "tool_use", "max_tokens"). Empty: tool_use when a part is a tool call, else
	// end_turn.
	StopReason string
	// Usage overrides the reported token counts; zero means an estimate from the
	// sizes of request and response (four bytes a token), no cache use.
	Usage llm.Usage

	// Status, when set, answers with that HTTP status and an error body in the
	// endpoint's format (429 rate limit, 529 overloaded, 500 server error, 400
	// invalid request, …), with the header Retry-After: RetryAfter ("0" if empty)
	// on 429 and 5xx.
	Status     int
	RetryAfter string
	// CutAfter, when positive, sends that many stream events and then drops the
	// connection without ending the response.
	CutAfter int
	// EndAfter, when positive, sends that many stream events and then ends the
	// response cleanly, without the stream's terminal event.
	EndAfter int
	// StreamError, when set, sends an error event of this type ("overloaded_error",
	// "server_error", …) in the stream after CutAfter events (after the first event
	// when CutAfter is 0) and ends the response cleanly there.
	StreamError string
	// StallAfter, when positive, sends that many events and then sends nothing more
	// until the client goes away or the server closes.
	StallAfter int
	// Silent, when set, makes the response go quiet at once until the client goes
	// away or the server closes: SilentBeforeHeaders sends nothing at all (not even
	// the status line), SilentAfterHeaders sends the headers of a stream and no event.
	// Either counts as a stall (Server.Stalled).
	Silent Silence
	// Delay is a pause before each event.
	Delay time.Duration
	// PingsAfter, when positive, sends that many events and then only keep-alives
	// until the client goes away or the server closes: Anthropic's ping events, SSE
	// comments (": keep-alive") for the OpenAI formats; one every PingEvery (5ms
	// when zero).
	PingsAfter int
	PingEvery  time.Duration
	// Malformed, when set, is sent as the data of the event after CutAfter events
	// (after the first event when CutAfter is 0), as it is, unencoded (bad JSON, a
	// JSON array, …); the response then ends cleanly there.
	Malformed string
}

// Silence is where a response goes quiet (Turn.Silent).
type Silence int

const (
	NotSilent Silence = iota
	SilentBeforeHeaders
	SilentAfterHeaders
)

// exhausted is the turn served when the script has run out.
var exhausted = Turn{Parts: []Part{Text("(script exhausted)")}}

func (t Turn) hasToolCall() bool {
	for _, p := range t.Parts {
		if p.Kind == KindToolCall {
			return true
		}
	}
	return false
}

// stopReason is the Anthropic stop reason of the turn.
func (t Turn) stopReason() string {
	switch {
	case t.StopReason != "":
		return t.StopReason
	case t.hasToolCall():
		return "tool_use"
	default:
		return "end_turn"
	}
}

// usage returns the token counts to report for a request body of n bytes.
func (t Turn) usage(n int) llm.Usage {
	if t.Usage != (llm.Usage{}) {
		return t.Usage
	}
	out := 0
	for _, p := range t.Parts {
		out += len(p.Text) + len(p.Name) + len(p.Input)
	}
	return llm.Usage{InputTokens: int64(n/4 + 1), OutputTokens: int64(out/4 + 1)}
}

// input returns the tool call's arguments, "{}" for none.
func (p Part) input() string {
	if p.Input == "" {
		return "{}"
	}
	return p.Input
}
