package tool

import (
	"encoding/json"
	"reflect"
	"testing"
)

var flatJSONCases = []string{
	`{}`, ` { } `, `{"action":"definition","file":"a/b.go","line":23,"symbol":"Store"}`,
	"{\n\t\"a\" : 1 ,\r\n \"b\":-0.5e+3}", `{"a":true,"b":false,"c":null}`, `{"a":"x","a":"y"}`,
	`{"a":0}`, `{"a":-0}`, `{"a":1E5}`, `{"a":1e-5}`, `{"a":12345678901234567890}`,
	// Left to json.Unmarshal: errors, and values the scan does not decode.
	``, `null`, `[]`, `"s"`, `{`, `{"a"}`, `{"a":}`, `{"a":1,}`, `{"a":1 "b":2}`, `{"a":01}`,
	`{"a":1.}`, `{"a":.5}`, `{"a":1e}`, `{"a":-}`, `{"a":+1}`, `{"a":1x}`, `{"a":tru}`, `{"a":truex}`,
	`{"a":nul}`, `{"a":1e400}`, `{"a":"\u00e9"}`, `{"a":"é"}`, `{"a":"tab\there"}`, "{\"a\":\"raw\ttab\"}",
	`{"a":[1]}`, `{"a":{"b":1}}`, `{"a":1} x`, `{"a":1}}`, `{'a':1}`, `{a:1}`,
}

// parseArgs gives what json.Unmarshal into an any gives: the same value, or an error
// where it fails.
func TestParseArgsAsJSON(t *testing.T) {
	for _, in := range flatJSONCases {
		checkParseArgs(t, in)
	}
	if _, ok := flatObject([]byte(`{"action":"hover","line":3}`)); !ok {
		t.Error("a flat object is not read by the scan")
	}
}

func FuzzParseArgs(f *testing.F) {
	for _, in := range flatJSONCases {
		f.Add(in)
	}
	f.Fuzz(func(t *testing.T, in string) { checkParseArgs(t, in) })
}

func checkParseArgs(t *testing.T, in string) {
	t.Helper()
	got, err := parseArgs([]byte(in))
	var want any
	wantErr := json.Unmarshal([]byte(in), &want)
	switch {
	case (err == nil) != (wantErr == nil):
		t.Errorf("%q: error %v, json.Unmarshal's %v", in, err, wantErr)
	case err != nil && err.Error() != wantErr.Error():
		t.Errorf("%q: error %q, json.Unmarshal's %q", in, err, wantErr)
	case err == nil && !reflect.DeepEqual(got, want):
		t.Errorf("%q: %#v, json.Unmarshal's %#v", in, got, want)
	}
}
