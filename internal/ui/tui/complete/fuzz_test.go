package complete

import (
	"strings"
	"testing"
	"unicode/utf8"
)

func FuzzTokenApply(f *testing.F) {
	f.Add("look at @internal/ag please", 20, "internal/agent/", "dir")
	f.Add("@skill:pd", 9, "pdf", "skill")
	f.Add("/mo opus", 3, "model", "command")
	f.Add("été @ñandú", 9, "x.go", "file")
	f.Add("\xff@\x80", 2, "a", "file")
	f.Add("", 0, "", "")
	f.Fuzz(func(t *testing.T, input string, cursor int, text, kind string) {
		start, k, prefix := Token(input, cursor)
		if start < 0 || start > len(input) {
			t.Fatalf("start %d out of [0, %d]", start, len(input))
		}
		if k != "" && !strings.HasSuffix(input[:boundary(input, cursor)], prefix) {
			t.Fatalf("prefix %q does not end before the cursor", prefix)
		}
		c := Candidate{Text: text, Kind: kind}
		for _, s := range []int{start, cursor, -cursor, len(input) - cursor} {
			out, at := Apply(input, cursor, s, c)
			if at < 0 || at > len(out) {
				t.Fatalf("Apply(%q, %d, %d): cursor %d out of [0, %d]", input, cursor, s, at, len(out))
			}
			if !strings.HasSuffix(out[:at], text) && !strings.HasSuffix(out[:at], text+" ") {
				t.Fatalf("Apply(%q, %d, %d) = %q, %d: the text is not before the cursor", input, cursor, s, out, at)
			}
			if kept := input[:min(boundary(input, s), boundary(input, cursor))]; !strings.HasPrefix(out, kept) {
				t.Fatalf("Apply(%q, %d, %d) = %q: %q before the token changed", input, cursor, s, out, kept)
			}
			if utf8.ValidString(input) && utf8.ValidString(text) {
				if !utf8.ValidString(out) || (at < len(out) && !utf8.RuneStart(out[at])) {
					t.Fatalf("Apply(%q, %d, %d) = %q, %d: broken UTF-8", input, cursor, s, out, at)
				}
			}
		}
	})
}
