package tool

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"unicode/utf8"
)

type edit struct {
	Old string `json:"old"`
	New string `json:"new"`
}

type args struct {
	Command string `json:"command" jsonschema:"description=the command"`
	Timeout int    `json:"timeout,omitempty" jsonschema:"minimum=1,maximum=600"`
	Mode    string `json:"mode,omitempty" jsonschema:"enum=fast,enum=slow"`
	Edits   []edit `json:"edits,omitempty"`
	Flag    bool   `json:"flag,omitempty"`
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
	}
	tl := testTool()
	for in, want := range cases {
		_, msg := tl.Decode(Env{Cwd: "/w"}, json.RawMessage(in))
		if !strings.Contains(msg, want) {
			t.Errorf("Decode(%s) = %q, want it to contain %q", in, msg, want)
		}
		if strings.Count(msg, "\n") > 0 {
			t.Errorf("Decode(%s) gave more than one line: %q", in, msg)
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
	for _, s := range []string{`{}`, `{"command":"x","edits":[{"old":"a","new":"b"}]}`, `null`, `[`, `{"timeout":1e400}`} {
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
