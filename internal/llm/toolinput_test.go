package llm_test

import (
	"context"
	"net/http"
	"strings"
	"testing"

	"go.uber.org/goleak"

	"github.com/gantry-dev/gantry/internal/llm"
	"github.com/gantry-dev/gantry/internal/llm/fakellm"
)

// A tool call's arguments stream as DeltaToolInput pieces naming the call, in the
// three wire formats; the DeltaToolCall that follows has the same index and the whole
// call, and the pieces together are its arguments.
func TestToolInputStreamsInPieces(t *testing.T) {
	defer goleak.VerifyNone(t)
	const input = `{"path":"notes.txt","content":"one\ntwo\nthree\nfour\nfive\nsix\nseven\n"}`
	for _, pv := range bounded {
		t.Run(pv.name, func(t *testing.T) {
			srv := fakellm.New(fakellm.Turn{Parts: []fakellm.Part{fakellm.Text("writing"),
				fakellm.ToolCall("call_1", "write_file", input), fakellm.ToolCall("call_2", "bash", `{"command":"ls"}`)}})
			defer srv.Close()
			client := &http.Client{Transport: llm.Guard(nil, llm.Bounds{})}
			defer client.CloseIdleConnections()
			pieces, counts := map[int]*strings.Builder{}, map[int]int{}
			var order []string // "input:<name>" and "call:<name>", as they came
			whole := map[int]*llm.Block{}
			_, err := pv.make(srv.URL(), client, 0).Stream(context.Background(), hi, func(d llm.Delta) {
				switch d.Type {
				case llm.DeltaToolInput:
					if whole[d.Index] != nil {
						t.Errorf("a piece of call %d after the call was whole", d.Index)
					}
					if pieces[d.Index] == nil {
						pieces[d.Index] = &strings.Builder{}
						order = append(order, "input:"+d.ToolCall.ToolName)
					}
					pieces[d.Index].WriteString(d.Text)
					counts[d.Index]++
				case llm.DeltaToolCall:
					whole[d.Index] = d.ToolCall
					order = append(order, "call:"+d.ToolCall.ToolName)
				}
			})
			if err != nil {
				t.Fatal(err)
			}
			if len(whole) != 2 {
				t.Fatalf("whole calls %v", whole)
			}
			sent := map[string]string{"write_file": input, "bash": `{"command":"ls"}`}
			for i, c := range whole {
				if b := pieces[i]; b == nil || b.String() != sent[c.ToolName] || c.ToolCallID == "" {
					t.Errorf("call %s (%s): pieces %v", c.ToolName, c.ToolCallID, b)
				}
			}
			if got := strings.Join(order, " "); !strings.HasPrefix(got, "input:write_file") || !strings.Contains(got, "input:bash") {
				t.Errorf("order %s", got)
			}
			if n := counts[firstIndex(whole, "write_file")]; n < 3 {
				t.Errorf("the input came in %d pieces", n)
			}
		})
	}
}

func firstIndex(calls map[int]*llm.Block, name string) int {
	for i, c := range calls {
		if c.ToolName == name {
			return i
		}
	}
	return -1
}
