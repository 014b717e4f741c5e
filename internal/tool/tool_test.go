package tool

import (
	"context"
	"encoding/json"
	"fmt"
	"reflect"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/invopop/jsonschema"
)

type edit struct {
	Old string `json:"old"`
	New string `json:"new"`
}

// flexID is an id sent as a string or a whole number, as todo and task ids are.
type flexID string

func (flexID) JSONSchema() *jsonschema.Schema { return StringOrIntSchema() }

func (id *flexID) UnmarshalJSON(b []byte) error {
	s, err := DecodeStringOrInt(b)
	*id = flexID(s)
	return err
}

type item struct {
	ID     flexID  `json:"id"`
	Status *string `json:"status,omitempty" jsonschema:"enum=pending,enum=in_progress,enum=completed"`
}

type args struct {
	Command string            `json:"command" jsonschema_description:"the command, whole"`
	Timeout int               `json:"timeout,omitempty" jsonschema:"minimum=1,maximum=600"`
	Mode    string            `json:"mode,omitempty" jsonschema:"enum=fast,enum=slow"`
	Edits   []edit            `json:"edits,omitempty"`
	Flag    bool              `json:"flag,omitempty"`
	Todos   []item            `json:"todos,omitempty"`
	Grid    [][]edit          `json:"grid,omitempty"`
	Headers map[string]string `json:"headers,omitempty"`
}

func testTool() Tool {
	return New(Def[args]{
		Name: "t", Level: LevelExec, Kind: KindExecute,
		Principal: func(a args) string { return a.Command },
		Paths:     func(env Env, a args) []string { return []string{env.Abs(a.Command)} },
		Run: func(ctx context.Context, env Env, a args) Result {
			if a.Command == "panic" {
				panic("boom")
			}
			return Result{Text: a.Command}
		},
	})
}

func TestDecodeSentences(t *testing.T) {
	cases := map[string]string{
		`[1]`:                                 "must be a JSON object",
		`{"command":`:                         "not valid JSON",
		`{}`:                                  `needs the argument "command"`,
		`{"command":null}`:                    `needs the argument "command"`,
		`{"command":3}`:                       `argument "command" must be a string, not a number`,
		`{"command":"x","timeout":"5"}`:       `argument "timeout" must be a number, not the string "5"`,
		`{"command":"x","timeout":1.5}`:       `must be a whole number`,
		`{"command":"x","timeout":601}`:       `must be at most 600`,
		`{"command":"x","timeout":0}`:         `must be at least 1`,
		`{"command":"x","mode":"medium"}`:     `must be one of "fast", "slow"`,
		`{"command":"x","edits":{}}`:          `argument "edits" must be an array`,
		`{"command":"x","edits":[{"old":1}]}`: `needs the argument "edits[0].new"`,
		`{"command":"x","flag":"yes"}`:        `"flag" must be true or false`,
		`{"command":"x","edits":[null]}`:      `argument "edits[0]" must not be null`,
		// Whole sentences.
		`{"command":"x","timeout":900}`:                         `t: argument "timeout" must be at most 600, not 900.`,
		`{"command":"x","edits":[{"old":"a","new":"b"},{}]}`:    `t needs the argument "edits[1].old", which is missing.`,
		`{"command":"x","grid":[[{"old":"a","new":"b"}],[{}]]}`: `t needs the argument "grid[1][0].old", which is missing.`,
		`{"command":"x","grid":[[{"old":"a","new":2}]]}`:        `t: argument "grid[0][0].new" must be a string, not a number.`,
		`{"command":"x","todos":[{"id":1,"status":"done"}]}`:    `t: argument "todos[0].status" must be one of "pending", "in_progress", "completed", not "done".`,
		`{"command":"x","todos":[{"id":"a"},{"id":true}]}`:      `t: argument "todos[1].id" must be a string or a whole number, not true.`,
		`{"command":"x","todos":[{"id":1.5}]}`:                  `t: argument "todos[0].id" must be a string or a whole number, not 1.5.`,
		`{"command":"x","todos":[{"id":{}}]}`:                   `t: argument "todos[0].id" must be a string or a whole number, not an object.`,
		`{"command":"x","todos":[{"status":"pending"}]}`:        `t needs the argument "todos[0].id", which is missing.`,
		`{"command":"x","headers":{"Accept":"a","X-N":3}}`:      `t: argument "headers.X-N" must be a string, not a number.`,
	}
	tl := testTool()
	for in, want := range cases {
		_, msg := tl.Decode(Env{Cwd: "/w"}, json.RawMessage(in))
		if !strings.Contains(msg, want) {
			t.Errorf("Decode(%s) = %q, want it to contain %q", in, msg, want)
		}
		if strings.Count(msg, "\n") > 0 || !strings.HasSuffix(msg, ".") {
			t.Errorf("Decode(%s) is not one sentence: %q", in, msg)
		}
	}
}

// TestDecodeAccepts checks inputs a model sends that are valid: properties the schema
// does not name, null for an optional argument, ids as strings or numbers.
func TestDecodeAccepts(t *testing.T) {
	var got args
	tl := New(Def[args]{Name: "t", Run: func(ctx context.Context, env Env, a args) Result {
		got = a
		return Result{}
	}})
	cases := map[string]func(a args) bool{
		`{"command":"x","extra":1,"more":{"a":[null]}}`: func(a args) bool { return a.Command == "x" },
		`{"command":"x","timeout":null,"mode":null,"edits":null,"todos":null}`: func(a args) bool {
			return a.Timeout == 0 && a.Mode == "" && a.Edits == nil && a.Todos == nil
		},
		`{"command":"x","todos":[{"id":7},{"id":" t3 ","status":null},{"id":"c","status":"completed","note":"z"}]}`: func(a args) bool {
			return len(a.Todos) == 3 && a.Todos[0].ID == "7" && a.Todos[1].ID == "t3" && a.Todos[1].Status == nil && *a.Todos[2].Status == "completed"
		},
		`{"command":"x","edits":[{"old":"a","new":"b","why":1}],"grid":[[],[{"old":"c","new":""}]]}`: func(a args) bool {
			return a.Edits[0] == edit{"a", "b"} && len(a.Grid) == 2 && a.Grid[1][0] == edit{"c", ""}
		},
		`{"command":"x","headers":{"Accept":"text/plain"}}`: func(a args) bool { return a.Headers["Accept"] == "text/plain" },
		`null`: nil, // no arguments at all: "command" is missing
	}
	for in, ok := range cases {
		got = args{}
		inv, msg := tl.Decode(Env{Cwd: "/w"}, json.RawMessage(in))
		if ok == nil {
			if !strings.Contains(msg, `needs the argument "command"`) {
				t.Errorf("Decode(%s) = %q", in, msg)
			}
			continue
		}
		if msg != "" {
			t.Errorf("Decode(%s) refused: %s", in, msg)
			continue
		}
		inv.Run(context.Background())
		if !ok(got) {
			t.Errorf("Decode(%s) decoded %+v", in, got)
		}
	}
}

func TestDecodeAndRun(t *testing.T) {
	inv, msg := testTool().Decode(Env{Cwd: "/w"}, json.RawMessage(`{"command":"sub/x","extra":1}`))
	if msg != "" {
		t.Fatal(msg)
	}
	if inv.Principal != "sub/x" || inv.Paths[0] != "/w/sub/x" {
		t.Fatalf("inv = %+v", inv)
	}
	if r := inv.Run(context.Background()); r.Text != "sub/x" {
		t.Fatalf("run = %+v", r)
	}
	inv, _ = testTool().Decode(Env{}, json.RawMessage(`{"command":"panic"}`))
	if r := inv.Run(context.Background()); !r.IsError || !strings.Contains(r.Text, "gantry bug") {
		t.Fatalf("a panic must become an error result: %+v", r)
	}
}

func TestRegistryLevels(t *testing.T) {
	r := NewRegistry()
	r.Add(testTool())
	r.Add(New(Def[args]{Name: "a", Level: LevelRead}))
	r.AddIf(false, New(Def[args]{Name: "hidden", Level: LevelRead}))
	if got := r.Names(LevelExec); strings.Join(got, ",") != "a,t" {
		t.Fatalf("names = %v", got)
	}
	if got := r.Names(LevelRead); strings.Join(got, ",") != "a" {
		t.Fatalf("read names = %v", got)
	}
	s := r.Specs(LevelExec)[1]
	if !strings.Contains(string(s.Schema), `"required":["command"]`) {
		t.Fatalf("schema = %s", s.Schema)
	}
}

func TestBound(t *testing.T) {
	if Bound("short", 100) != "short" {
		t.Fatal("short text changed")
	}
	s := strings.Repeat("é", 300) + strings.Repeat("z", 300)
	b := Bound(s, 100)
	if !utf8.ValidString(b) || !strings.HasPrefix(b, "éé") || !strings.HasSuffix(b, "zz") || !strings.Contains(b, "characters cut") {
		t.Fatalf("Bound = %q", b)
	}
	for _, max := range []int{10, 150, 200, 1000, 30000} {
		for _, size := range []int{max + 1, max + 9, 2 * max, 43429, 500000} {
			in := strings.Repeat("abcdefghij\n", size/11+1)[:size]
			out := Bound(in, max)
			if n := utf8.RuneCountInString(out); n > max {
				t.Fatalf("Bound(%d chars, %d) gave %d characters", size, max, n)
			}
			if Bound(out, max) != out {
				t.Fatalf("bounding bounded text (%d, %d) changed it", size, max)
			}
			if max >= 200 && size > max {
				kept := utf8.RuneCountInString(out) - utf8.RuneCountInString(out[strings.Index(out, "\n[…"):strings.LastIndex(out, "…]\n")+len("…]\n")])
				if want := fmt.Sprintf("[… %d of %d characters cut", size-kept, size); !strings.Contains(out, want) {
					t.Fatalf("Bound(%d, %d) does not say %q: %q", size, max, want, out[strings.Index(out, "\n[…"):][:80])
				}
			}
		}
	}
}

func FuzzDecode(f *testing.F) {
	for _, s := range []string{`{}`, `{"command":"x","edits":[{"old":"a","new":"b"}]}`, `null`, `[`, `{"timeout":1e400}`, `{"command":"x","todos":[{"id":1},{"id":"a","status":"pending"}],"headers":{"a":"b"}}`} {
		f.Add(s)
	}
	tl := testTool()
	f.Fuzz(func(t *testing.T, in string) {
		inv, msg := tl.Decode(Env{Cwd: "/w"}, json.RawMessage(in))
		if msg == "" && inv.Run == nil {
			t.Fatal("no error and nothing to run")
		}
	})
}

func TestDecodeStringOrInt(t *testing.T) {
	for in, want := range map[string]string{`" t3 "`: "t3", `7`: "7", `"x"`: "x"} {
		if got, err := DecodeStringOrInt([]byte(in)); err != nil || got != want {
			t.Errorf("%s: %q %v", in, got, err)
		}
	}
	for _, in := range []string{`1.5`, `true`, `{}`, `[]`} {
		if _, err := DecodeStringOrInt([]byte(in)); err == nil {
			t.Errorf("%s accepted", in)
		}
	}
}

// TestSchemaOfAnyField: an any field has the boolean schema true; it checks nothing.
func TestSchemaOfAnyField(t *testing.T) {
	type withAny struct {
		Name  string `json:"name"`
		Value any    `json:"value"`
	}
	raw, node := SchemaOf(reflect.TypeFor[withAny]())
	if !strings.Contains(string(raw), `"value":true`) {
		t.Fatalf("schema = %s", raw)
	}
	for _, in := range []string{`{"name":"a","value":1}`, `{"name":"a","value":{"x":[1]}}`} {
		if msg := validate("t", node, json.RawMessage(in)); msg != "" {
			t.Errorf("%s: %s", in, msg)
		}
	}
	if msg := validate("t", node, json.RawMessage(`{"name":2,"value":1}`)); !strings.Contains(msg, `"name" must be a string`) {
		t.Errorf("msg = %q", msg)
	}
}

// A view's own tool replaces the registry's tool of that name in the view only.
func TestViewHasItsOwnTools(t *testing.T) {
	r := NewRegistry()
	r.Add(New(Def[args]{Name: "eval", Description: "parent's", Level: LevelRead}))
	r.Add(New(Def[args]{Name: "agent", Level: LevelRead}))
	r.Add(New(Def[args]{Name: "read", Level: LevelRead}))
	v := r.Without("agent")
	v.AddWhen(New(Def[args]{Name: "eval", Description: "own", Level: LevelRead}), func() bool { return true })
	if got := strings.Join(v.Names(LevelExec), ","); got != "eval,read" {
		t.Errorf("the view declares %s", got)
	}
	if tl, _ := v.Lookup("eval"); tl.Spec().Description != "own" {
		t.Errorf("the view's eval is %q, want its own", tl.Spec().Description)
	}
	if tl, _ := r.Lookup("eval"); tl.Spec().Description != "parent's" {
		t.Errorf("the registry's eval is %q, want its own", tl.Spec().Description)
	}
}
