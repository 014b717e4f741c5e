package lsp

import (
	"testing"

	"go.lsp.dev/protocol"
)

func TestLocate(t *testing.T) {
	text := "package p\n\tvar héllo, hello = 1, 2 // hello\nx := ab + a\n"
	cases := []struct {
		line   int
		symbol string
		want   uint32
		err    string
	}{
		{2, "hello", 12, ""}, // the whole word, after "héllo" (é: one UTF-16 unit, two bytes)
		{2, "héllo", 5, ""},
		{3, "a", 10, ""}, // "ab" holds an a, but the whole word comes later
		{3, "b", 6, ""},  // no whole word: the first occurrence
		{3, "zz", 0, `"zz" is not on line 3 of f.go, which reads: x := ab + a`},
		{4, "x", 0, "f.go has 3 lines; line 4 is past its end."},
		{0, "x", 0, "f.go has 3 lines; line 0 is past its end."},
	}
	for _, c := range cases {
		p, msg := Locate(text, c.line, c.symbol, "f.go")
		if msg != c.err || c.err == "" && (p.Line != uint32(c.line-1) || p.Character != c.want) {
			t.Errorf("Locate(%d, %q) = %+v %q, want char %d %q", c.line, c.symbol, p, msg, c.want, c.err)
		}
	}
}

func TestApplyEdits(t *testing.T) {
	text := "a😀b\nfoo bar\n"
	pos := func(l, c uint32) protocol.Position { return protocol.Position{Line: l, Character: c} }
	got, err := Apply(text, []protocol.TextEdit{
		{Range: protocol.Range{Start: pos(1, 4), End: pos(1, 7)}, NewText: "baz"},
		{Range: protocol.Range{Start: pos(0, 3), End: pos(0, 4)}, NewText: "B"}, // after the emoji's two UTF-16 units
		{Range: protocol.Range{Start: pos(1, 0), End: pos(1, 0)}, NewText: ">"},
	})
	if err != nil || got != "a😀B\n>foo baz\n" {
		t.Fatalf("Apply = %q, %v", got, err)
	}
	if _, err := Apply(text, []protocol.TextEdit{
		{Range: protocol.Range{Start: pos(1, 0), End: pos(1, 5)}, NewText: ""},
		{Range: protocol.Range{Start: pos(1, 2), End: pos(1, 3)}, NewText: ""},
	}); err == nil {
		t.Fatal("overlapping edits were applied")
	}
}
