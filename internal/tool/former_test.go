package tool

import (
	"context"
	"encoding/json"
	"strings"
	"testing"
)

type waitArgs struct {
	TaskID  string  `json:"task_id"`
	Timeout float64 `json:"timeout,omitempty" jsonschema:"minimum=0,maximum=600"`
	Delay   float64 `json:"delay,omitempty" jsonschema:"minimum=0,maximum=1"`
}

// waitTool renamed taskId to task_id, gave its timeout in seconds (it was in
// milliseconds, under the same name) and its delay_ms became delay, in seconds.
func waitTool(got *waitArgs) Tool {
	return New(Def[waitArgs]{
		Name: "wait",
		Formers: []Former{
			{Name: "taskId", New: "task_id"},
			{Name: "timeout", New: "timeout", Scale: 0.001, Over: 600, Unit: "seconds", OldUnit: "milliseconds"},
			{Name: "delay_ms", New: "delay", Scale: 0.001, Unit: "seconds"},
		},
		Run: func(_ context.Context, _ Env, a waitArgs) Result {
			*got = a
			return Result{Text: "waited"}
		},
	})
}

func TestFormerSpellingsWorkWithANote(t *testing.T) {
	var got waitArgs
	tl := waitTool(&got)
	for _, c := range []struct {
		in    string
		want  waitArgs
		notes []string
	}{
		// The current spellings: no note, no rewriting.
		{`{"task_id":"a","timeout":30,"delay":0.05}`, waitArgs{"a", 30, 0.05}, nil},
		{`{"task_id":"a","timeout":600}`, waitArgs{"a", 600, 0}, nil},
		// The former ones, converted, each with its sentence.
		{`{"taskId":"a"}`, waitArgs{TaskID: "a"}, []string{"(Note: taskId is deprecated; use task_id.)"}},
		{`{"task_id":"a","timeout":30000}`, waitArgs{"a", 30, 0}, []string{"(Note: timeout in milliseconds is deprecated; give it in seconds.)"}},
		{`{"task_id":"a","delay_ms":250}`, waitArgs{"a", 0, 0.25}, []string{"(Note: delay_ms is deprecated; use delay, in seconds.)"}},
		{`{"taskId":"7","timeout":1500,"delay_ms":5}`, waitArgs{"7", 1.5, 0.005}, []string{"taskId is deprecated", "timeout in milliseconds", "delay_ms is deprecated"}},
		// Both spellings: the current one wins, and the note still says so.
		{`{"taskId":"old","task_id":"new"}`, waitArgs{TaskID: "new"}, []string{"taskId is deprecated"}},
	} {
		got = waitArgs{}
		inv, msg := tl.Decode(Env{Cwd: "/w"}, json.RawMessage(c.in))
		if msg != "" {
			t.Errorf("Decode(%s) refused: %s", c.in, msg)
			continue
		}
		r := inv.Run(context.Background())
		if got != c.want {
			t.Errorf("Decode(%s) ran with %+v, want %+v", c.in, got, c.want)
		}
		if len(c.notes) == 0 {
			if r.Text != "waited" || inv.Input != nil {
				t.Errorf("Decode(%s): result %q, input %s", c.in, r.Text, inv.Input)
			}
			continue
		}
		if !strings.HasPrefix(r.Text, "waited\n\n(Note: ") {
			t.Errorf("Decode(%s): the note does not follow the result: %q", c.in, r.Text)
		}
		for _, n := range c.notes {
			if !strings.Contains(r.Text, n) {
				t.Errorf("Decode(%s): result %q lacks %q", c.in, r.Text, n)
			}
		}
		// Hooks and faces see the arguments in their current spelling.
		var in map[string]any
		if err := json.Unmarshal(inv.Input, &in); err != nil {
			t.Fatalf("Decode(%s): input %s: %v", c.in, inv.Input, err)
		}
		for _, old := range []string{"taskId", "delay_ms"} {
			if _, ok := in[old]; ok {
				t.Errorf("Decode(%s): the rewritten input keeps %s: %s", c.in, old, inv.Input)
			}
		}
	}
}

func TestFormerSpellingsAreNotInTheSchema(t *testing.T) {
	var got waitArgs
	var s map[string]any
	if err := json.Unmarshal(waitTool(&got).Spec().Schema, &s); err != nil {
		t.Fatal(err)
	}
	props, _ := s["properties"].(map[string]any)
	for _, name := range []string{"task_id", "timeout", "delay"} {
		if _, ok := props[name]; !ok {
			t.Errorf("the schema lacks %s: %v", name, props)
		}
	}
	for _, name := range []string{"taskId", "delay_ms"} {
		if _, ok := props[name]; ok || strings.Contains(string(waitTool(&got).Spec().Schema), name) {
			t.Errorf("the schema names the former %s: %s", name, waitTool(&got).Spec().Schema)
		}
	}
}

// TestFormerSpellingsInRefusals: a call refused for another reason still learns its
// spelling is deprecated, in the same sentence's line.
func TestFormerSpellingsInRefusals(t *testing.T) {
	var got waitArgs
	_, msg := waitTool(&got).Decode(Env{Cwd: "/w"}, json.RawMessage(`{"taskId":"a","delay_ms":5000}`))
	if !strings.Contains(msg, `argument "delay" must be at most 1, not 5.`) || !strings.Contains(msg, "delay_ms is deprecated") || strings.Contains(msg, "\n") {
		t.Errorf("refusal: %q", msg)
	}
}
