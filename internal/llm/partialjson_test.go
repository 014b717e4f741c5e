package llm

import (
	"encoding/json"
	"strings"
	"testing"
)

func TestClosePartialJSON(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{``, ``},
		{`{`, `{}`},
		{`{"comm`, `{}`},
		{`{"command"`, `{}`},
		{`{"command":`, `{}`},
		{`{"command":"ls -l`, `{"command":"ls -l"}`},
		{`{"command":"echo \`, `{"command":"echo "}`},
		{`{"command":"echo \u00e`, `{"command":"echo "}`},
		{`{"command":"echo \u00e9`, `{"command":"echo \u00e9"}`},
		{`{"path":"a.go","content":"line 1\nline`, `{"path":"a.go","content":"line 1\nline"}`},
		{`{"n":12`, `{}`},
		{`{"n":12,`, `{"n":12}`},
		{`{"a":true,"b":nul`, `{"a":true}`},
		{`{"a":[1,2,{"b":"c`, `{"a":[1,2,{"b":"c"}]}`},
		{`{"a":[`, `{"a":[]}`},
		{`{"a":{}, "b": [] }  `, `{"a":{}, "b": [] }`},
		{`{"a" "b"}`, `{}`},
		{`nonsense`, ``},
		{"{\"s\":\"caf\xc3", `{"s":"caf"}`},
	} {
		if got := ClosePartialJSON(c.in); got != c.want {
			t.Errorf("ClosePartialJSON(%q) = %q, want %q", c.in, got, c.want)
		}
	}
}

// FuzzClosePartialJSON: whatever the text, the answer is valid JSON or nothing; every
// start of a valid object closes to valid JSON; and a whole object or array comes back
// as it is.
func FuzzClosePartialJSON(f *testing.F) {
	for _, s := range []string{`{"command":"ls -la","timeout":10}`, `{"path":"a","content":"x\n\"y\"\\z\u00e9"}`,
		`[1,-2.5e3,true,false,null,{"a":[]}]`, `{"a":{"b":{"c":"d"}}}`, `{"s":"\ud83d\ude00 é"}`, `{`, `"x`} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		out := ClosePartialJSON(s)
		if out != "" && !json.Valid([]byte(out)) {
			t.Fatalf("ClosePartialJSON(%q) = %q, not JSON", s, out)
		}
		trimmed := strings.TrimSpace(s)
		if json.Valid([]byte(s)) && (strings.HasPrefix(trimmed, "{") || strings.HasPrefix(trimmed, "[")) {
			if want := strings.TrimRight(s, " \t\r\n"); out != want {
				t.Fatalf("ClosePartialJSON(%q) = %q, want it whole", s, out)
			}
			for i := range len(s) {
				if p := ClosePartialJSON(s[:i]); p != "" && !json.Valid([]byte(p)) {
					t.Fatalf("ClosePartialJSON(%q) = %q, not JSON", s[:i], p)
				}
			}
		}
	})
}
