package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// check takes a JSON value alone or one fenced block holding it, and nothing else.
func TestOutputSchemaCheck(t *testing.T) {
	p := filepath.Join(t.TempDir(), "s.json")
	if err := os.WriteFile(p, []byte(testSchema), 0o644); err != nil {
		t.Fatal(err)
	}
	s, err := loadSchema(p)
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct{ answer, want, err string }{
		{answer: ` {"name": "a", "count": 1} `, want: `{"name":"a","count":1}`},
		{answer: "```json\n{\"name\": \"a\", \"count\": 12345678901234567890}\n```", want: `{"name":"a","count":12345678901234567890}`},
		{answer: "```\n{\"name\": \"a\", \"count\": 1}\n```", want: `{"name":"a","count":1}`},
		{answer: "```yaml\nname: a\n```", err: "not JSON"},
		{answer: "```json\n{}\n```\n```json\n{}\n```", err: "not JSON"},
		{answer: `Sure: {"name": "a", "count": 1}`, err: "not JSON"},
		{answer: `{"name": "a", "count": 1} and more`, err: "more after its JSON value"},
		{answer: `{"name": "a", "count": 1}{}`, err: "more after its JSON value"},
		{answer: "", err: "empty"},
		{answer: `{"name": "a"}`, err: `missing properties: ["count"]`},
	} {
		got, err := s.check(c.answer)
		switch {
		case c.err == "" && (err != nil || string(got) != c.want):
			t.Errorf("%q: %s, %v; want %s", c.answer, got, err, c.want)
		case c.err != "" && (err == nil || !strings.Contains(err.Error(), c.err)):
			t.Errorf("%q: error %v, want one with %q", c.answer, err, c.err)
		}
	}
}
