package tool

import (
	"context"
	"encoding/json"
	"reflect"
	"slices"
	"strings"
	"testing"
)

type opArgs struct {
	Op   string `json:"op" jsonschema_description:"What to do."`
	Path string `json:"path,omitempty"`
	N    int    `json:"n,omitempty"`
}

// opsTool is an exec tool of three operations: look (read, its own title and
// kind), write (needs a path, its own paths) and run (the Def's title).
func opsTool() Tool {
	return New(Def[opArgs]{
		Name: "ops", Level: LevelExec, Kind: KindExecute, Counter: CountCommand,
		Principal: func(a opArgs) string { return a.Op },
		Title:     func(_ Env, a opArgs, _ []string) string { return "Def title " + a.Op },
		Check: func(a opArgs) string {
			if a.N < 0 {
				return "ops: n cannot be negative."
			}
			return ""
		},
		Ops: &Ops[opArgs]{Arg: "op", List: []Op[opArgs]{
			{Name: "look", About: "reads", Level: LevelRead, Kind: KindRead, Counter: CountFileOp,
				Title: func(_ Env, a opArgs, _ []string) string { return "Look" },
				Run:   func(context.Context, Env, opArgs) Result { return Result{Text: "looked"} }},
			{Name: "write", Level: LevelWrite,
				Check: func(a opArgs) string {
					if a.Path == "" {
						return "ops write needs a path."
					}
					return ""
				},
				Principal: func(a opArgs) string { return "write " + a.Path },
				Paths:     func(env Env, a opArgs) []string { return []string{env.Abs(a.Path)} },
				Run:       func(_ context.Context, _ Env, a opArgs) Result { return Result{Text: "wrote " + a.Path} }},
			{Name: "run", Level: LevelExec,
				Run: func(context.Context, Env, opArgs) Result { return Result{Text: "ran"} }},
		}},
	})
}

func TestOpsDispatchAndDescribe(t *testing.T) {
	tl := opsTool()
	env := Env{Cwd: "/w"}
	cases := []struct {
		in                string
		text, title, prin string
		level             Level
		kind              Kind
		counter           Counter
		paths             []string
	}{
		{`{"op":"look"}`, "looked", "Look", "look", LevelRead, KindRead, CountFileOp, nil},
		{`{"op":"write","path":"a"}`, "wrote a", "Def title write", "write a", LevelWrite, KindExecute, CountCommand, []string{"/w/a"}},
		{`{"op":"run"}`, "ran", "Def title run", "run", LevelExec, KindExecute, CountCommand, nil},
	}
	for _, c := range cases {
		inv, msg := tl.Decode(env, json.RawMessage(c.in))
		if msg != "" {
			t.Fatalf("%s: %s", c.in, msg)
		}
		if r := inv.Run(context.Background()); r.Text != c.text {
			t.Errorf("%s ran %q, want %q", c.in, r.Text, c.text)
		}
		call := Describe(tl, inv)
		if call.Title != c.title || call.Principal != c.prin || call.Level != c.level || call.Kind != c.kind || call.Counter != c.counter {
			t.Errorf("%s: described as %+v", c.in, call)
		}
		if !slices.Equal(inv.Paths, c.paths) {
			t.Errorf("%s: paths %v, want %v", c.in, inv.Paths, c.paths)
		}
	}
	if tl.Level() != LevelExec {
		t.Errorf("the tool's level is %s; its operations must not change it", tl.Level())
	}
}

func TestOpsRefuse(t *testing.T) {
	tl := opsTool()
	cases := map[string]string{
		`{"op":"lok"}`:         `ops has no op "lok" (did you mean "look"?); it has look, write and run.`,
		`{"op":"fly"}`:         `ops has no op "fly"; it has look, write and run.`,
		`{"op":"write"}`:       `ops write needs a path.`,
		`{"op":"look","n":-1}`: `ops: n cannot be negative.`, // the Def's check, after the operation's
		`{}`:                   `ops needs the argument "op", which is missing.`,
		`{"op":3}`:             `ops: argument "op" must be a string, not a number.`,
	}
	for in, want := range cases {
		if _, msg := tl.Decode(Env{}, json.RawMessage(in)); msg != want {
			t.Errorf("%s: %q, want %q", in, msg, want)
		}
	}
}

func TestOpsSchema(t *testing.T) {
	var s struct {
		Required   []string `json:"required"`
		Properties map[string]struct {
			Enum        []string `json:"enum"`
			Description string   `json:"description"`
		} `json:"properties"`
	}
	if err := json.Unmarshal(opsTool().Spec().Schema, &s); err != nil {
		t.Fatal(err)
	}
	op := s.Properties["op"]
	if !slices.Equal(op.Enum, []string{"look", "write", "run"}) {
		t.Errorf("enum %v: want the table's names in its order", op.Enum)
	}
	if op.Description != "What to do. look: reads." || !slices.Contains(s.Required, "op") {
		t.Errorf("description %q, required %v", op.Description, s.Required)
	}
	// The type's own schema, which other tools of the type share, is unchanged.
	raw, _ := SchemaOf(reflect.TypeFor[opArgs]())
	if strings.Contains(string(raw), "enum") {
		t.Errorf("the table's enum leaked into the type's schema: %s", raw)
	}
}

func TestOpsTableMistakesPanic(t *testing.T) {
	run := func(context.Context, Env, opArgs) Result { return Result{} }
	for name, ops := range map[string]*Ops[opArgs]{
		"above the tool": {Arg: "op", List: []Op[opArgs]{{Name: "x", Level: LevelExec, Run: run}}},
		"twice":          {Arg: "op", List: []Op[opArgs]{{Name: "x", Run: run}, {Name: "x", Run: run}}},
		"no run":         {Arg: "op", List: []Op[opArgs]{{Name: "x"}}},
		"empty":          {Arg: "op"},
	} {
		func() {
			defer func() {
				if recover() == nil {
					t.Errorf("%s: New accepted the table", name)
				}
			}()
			New(Def[opArgs]{Name: "bad", Level: LevelWrite, Ops: ops})
		}()
	}
}

func TestNearest(t *testing.T) {
	names := []string{"screenshot", "click", "double_click", "step_over", "stack"}
	for given, want := range map[string]string{"stak": "stack", "stepover": "step_over", "screen": "screenshot",
		"doubleclick": "double_click", "Click": "click", "launch": "", "x": ""} {
		if got := Nearest(given, names); got != want {
			t.Errorf("Nearest(%q) = %q, want %q", given, got, want)
		}
	}
}

// A draft of a tool with operations is described by its operation's functions once
// the operation's name is written, and by the tool's name alone before.
func TestOpsDraftFollowsTheOperation(t *testing.T) {
	tl := opsTool()
	env := Env{Cwd: "/w"}
	if c := Draft(tl, env, json.RawMessage(`{"path":"a"}`)); c.Title != "ops" || c.Principal != "" {
		t.Errorf("a draft without its operation was described as %+v", c)
	}
	c := Draft(tl, env, json.RawMessage(`{"op":"look"}`))
	if c.Title != "Look" || c.Level != LevelRead || c.Kind != KindRead {
		t.Errorf("a look draft was described as %+v", c)
	}
	c = Draft(tl, env, json.RawMessage(`{"op":"write","path":"a"}`))
	if c.Principal != "write a" || !slices.Equal(c.Locations, []string{"/w/a"}) || c.Title != "Def title write" {
		t.Errorf("a write draft was described as %+v", c)
	}
}
