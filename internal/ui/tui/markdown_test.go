package tui

import "testing"

func TestSettle(t *testing.T) {
	cases := []struct{ in, settled, rest string }{
		{"growing", "", "growing"},
		{"one\n\ntwo", "one\n\n", "two"},
		{"one\n\ntwo\n\nthr", "one\n\ntwo\n\n", "thr"},
		{"```go\na\n\nb\n", "", "```go\na\n\nb\n"},
		{"```go\na\n\nb\n```\n\nafter", "```go\na\n\nb\n```\n\n", "after"},
		{"\n\nx", "", "\n\nx"},
	}
	for _, c := range cases {
		s, r := settle(c.in)
		if s != c.settled || r != c.rest {
			t.Errorf("settle(%q) = %q, %q; want %q, %q", c.in, s, r, c.settled, c.rest)
		}
	}
}
