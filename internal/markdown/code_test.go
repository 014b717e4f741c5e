package markdown

import (
	"strings"
	"testing"
)

func TestFenceOf(t *testing.T) {
	for line, want := range map[string]string{
		"```go": "```", "~~~~": "~~~~", "   ```": "```", "    ```": "", "``": "", "```a`b": "", "text": "",
	} {
		if got := FenceOf(line); got != want {
			t.Errorf("FenceOf(%q) = %q, want %q", line, got, want)
		}
	}
}

func TestMaskInlineCode(t *testing.T) {
	for line, want := range map[string]string{
		"see `@x` and @y":   "see      and @y",
		"``a ` b`` @z":      "          @z",
		"unmatched ` @w":    "unmatched ` @w",
		"no code at all @v": "no code at all @v",
		"`a` `b` @u `c`":    "        @u    ",
	} {
		got := MaskInlineCode(line)
		if got != want || len(got) != len(line) {
			t.Errorf("MaskInlineCode(%q) = %q, want %q", line, got, want)
		}
	}
}

func TestProseLines(t *testing.T) {
	text := "a\n```go\nin code\n```\nb\n~~~~\nx\n~~~\nstill code\n~~~~\nc"
	var got []string
	ProseLines(text, func(l string) { got = append(got, l) })
	if strings.Join(got, "|") != "a|b|c" {
		t.Fatalf("%q", got)
	}
}
