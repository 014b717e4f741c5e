package tool

import (
	"encoding/json"
	"reflect"
	"testing"
)

type flatSample struct {
	Action string `json:"action"`
	Line   int    `json:"line,omitempty"`
	Big    int64  `json:"big,omitempty"`
	On     bool   `json:"on,omitempty"`
	hidden string // json.Unmarshal leaves it, and so does flatArgs
}

type upper string

func (u *upper) UnmarshalJSON(b []byte) error { *u = upper("U" + string(b)); return nil }

// flatArgs gives what json.Unmarshal gives, or declines: every input here is decoded
// both ways and compared, including those it must leave to json.Unmarshal.
func TestFlatArgsAsJSON(t *testing.T) {
	fa := flatArgsOf(reflect.TypeFor[flatSample]())
	if fa == nil {
		t.Fatal("a struct of string, int, int64 and bool fields is not flat")
	}
	for _, c := range []struct {
		in   string
		fast bool // flatArgs decodes it itself
	}{
		{`{"action":"definition","line":23,"on":true}`, true},
		{`{"action":"a\u00e9\"b","line":-4,"big":9007199254740991}`, true},
		{`{"action":null,"line":7}`, true},
		{`{"action":"x","action":"y"}`, true},
		{`{"action":"1.5e3 in a string","line":2}`, true},
		{`{"Action":"case"}`, false},          // json.Unmarshal matches the other case
		{`{"action":"x","unknown":1}`, false}, // left to json.Unmarshal, which ignores it
		{`{"line":23.0}`, false},              // json.Unmarshal refuses a fraction for an int
		{`{"line":2e1}`, false},               // or an exponent
		{`{"line":1.5}`, false},               // not whole
		{`{"big":9007199254740993}`, false},   // past float64's exact integers
		{`{"action":3}`, false},               // another type
		{`{"on":"true"}`, false},
	} {
		var m map[string]any
		if err := json.Unmarshal([]byte(c.in), &m); err != nil {
			t.Fatal(err)
		}
		fast, slow := flatSample{hidden: "kept"}, flatSample{hidden: "kept"}
		ok := fa.fill(m, []byte(c.in), reflect.ValueOf(&fast))
		if ok != c.fast {
			t.Errorf("%s: fill %v, want %v", c.in, ok, c.fast)
		}
		if !ok {
			continue
		}
		if err := json.Unmarshal([]byte(c.in), &slow); err != nil {
			t.Fatalf("%s: json.Unmarshal: %v", c.in, err)
		}
		if fast != slow {
			t.Errorf("%s: flatArgs %+v, json.Unmarshal %+v", c.in, fast, slow)
		}
	}
	for name, typ := range map[string]reflect.Type{
		"a named string type": reflect.TypeFor[struct {
			U upper `json:"u"`
		}](),
		"a field without a json name": reflect.TypeFor[struct{ Plain string }](),
		"a slice": reflect.TypeFor[struct {
			L []string `json:"l"`
		}](),
		"a map": reflect.TypeFor[map[string]any](),
	} {
		if flatArgsOf(typ) != nil {
			t.Errorf("%s is taken as flat", name)
		}
	}
}
