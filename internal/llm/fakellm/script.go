package fakellm

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"time"

	"github.com/gantry-dev/gantry/internal/llm"
)

// scriptFile is the JSON form of a script; see the package documentation.
type scriptFile struct {
	Turns []scriptTurn `json:"turns"`
}

type scriptTurn struct {
	Parts       []scriptPart `json:"parts"`
	StopReason  string       `json:"stop_reason"`
	Usage       llm.Usage    `json:"usage"`
	Status      int          `json:"status"`
	RetryAfter  string       `json:"retry_after"`
	CutAfter    int          `json:"cut_after"`
	EndAfter    int          `json:"end_after"`
	StreamError string       `json:"stream_error"`
	StallAfter  int          `json:"stall_after"`
	Silent      string       `json:"silent"`
	DelayMS     int          `json:"delay_ms"`
	PingsAfter  int          `json:"pings_after"`
	Malformed   string       `json:"malformed"`
}

type scriptPart struct {
	Text        *string `json:"text"`
	EndlessText *string `json:"endless_text"`
	Thinking    *string `json:"thinking"`
	ToolCall    *struct {
		ID    string          `json:"id"`
		Name  string          `json:"name"`
		Input json.RawMessage `json:"input"`
	} `json:"tool_call"`
	ToolSearch *struct {
		ID    string `json:"id"`
		Query string `json:"query"`
	} `json:"tool_search"`
	ToolFound *struct {
		ID    string   `json:"id"`
		Tools []string `json:"tools"`
	} `json:"tool_found"`
}

// LoadScript reads a script in the JSON format described in the package
// documentation.
func LoadScript(r io.Reader) ([]Turn, error) {
	dec := json.NewDecoder(r)
	dec.DisallowUnknownFields()
	var f scriptFile
	if err := dec.Decode(&f); err != nil {
		return nil, fmt.Errorf("fakellm: reading script: %w", err)
	}
	turns := make([]Turn, 0, len(f.Turns))
	for i, st := range f.Turns {
		t := Turn{
			StopReason: st.StopReason, Usage: st.Usage, Status: st.Status, RetryAfter: st.RetryAfter,
			CutAfter: st.CutAfter, EndAfter: st.EndAfter, StreamError: st.StreamError, StallAfter: st.StallAfter,
			Delay:      time.Duration(st.DelayMS) * time.Millisecond,
			PingsAfter: st.PingsAfter, Malformed: st.Malformed,
		}
		switch st.Silent {
		case "":
		case "before_headers":
			t.Silent = SilentBeforeHeaders
		case "after_headers":
			t.Silent = SilentAfterHeaders
		default:
			return nil, fmt.Errorf("fakellm: script turn %d: silent is before_headers or after_headers, not %q", i+1, st.Silent)
		}
		for j, sp := range st.Parts {
			p, err := sp.part()
			if err != nil {
				return nil, fmt.Errorf("fakellm: script turn %d, part %d: %w", i+1, j+1, err)
			}
			t.Parts = append(t.Parts, p)
		}
		turns = append(turns, t)
	}
	return turns, nil
}

func (sp scriptPart) part() (Part, error) {
	n := 0
	var p Part
	if sp.Text != nil {
		n, p = n+1, Text(*sp.Text)
	}
	if sp.Thinking != nil {
		n, p = n+1, Thinking(*sp.Thinking)
	}
	if sp.EndlessText != nil {
		n, p = n+1, EndlessText(*sp.EndlessText)
	}
	if tc := sp.ToolCall; tc != nil {
		input := ""
		if len(tc.Input) > 0 && !bytes.Equal(tc.Input, []byte("null")) {
			var b bytes.Buffer
			if err := json.Compact(&b, tc.Input); err != nil {
				return Part{}, fmt.Errorf("tool call input: %w", err)
			}
			input = b.String()
		}
		if tc.Name == "" {
			return Part{}, fmt.Errorf("tool call without a name")
		}
		n, p = n+1, ToolCall(tc.ID, tc.Name, input)
	}
	if ts := sp.ToolSearch; ts != nil {
		n, p = n+1, ToolSearch(ts.ID, ts.Query)
	}
	if tf := sp.ToolFound; tf != nil {
		n, p = n+1, ToolFound(tf.ID, tf.Tools...)
	}
	if n != 1 {
		return Part{}, fmt.Errorf("a part needs exactly one of text, thinking, tool_call, tool_search, tool_found; it has %d", n)
	}
	return p, nil
}
