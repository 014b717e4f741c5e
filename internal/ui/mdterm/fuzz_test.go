package mdterm

import (
	"os"
	"slices"
	"strings"
	"testing"

	"github.com/charmbracelet/x/ansi"
)

func FuzzRender(f *testing.F) {
	for _, name := range []string{"testdata/sample.md", "testdata/answer.md"} {
		b, err := os.ReadFile(name)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(string(b), uint8(20), false)
		f.Add(string(b), uint8(0), true)
	}
	for _, s := range []string{
		"| a | b |\n|---|---|\n| " + strings.Repeat("long ", 20) + "| x |",
		"> - 1. > ```go\n> > x\n",
		"- [ ] ~~a~~ **b *c* d** `e`",
		strings.Repeat(">", 40) + " x",
		"123456789. " + strings.Repeat("日本", 30),
		"<div>\n" + strings.Repeat("x", 200) + "\n</div>",
		"&#27;[31m \x1b[0m \u009b2J",
	} {
		f.Add(s, uint8(0), false)
		f.Add(s, uint8(7), true)
	}
	f.Fuzz(func(t *testing.T, md string, w uint8, color bool) {
		width := 20 + int(w)%120
		o := Options{Width: width, Color: color}
		lines := render(md, o) // without Render's recover, so panics show
		for _, l := range lines {
			s := ansi.Strip(l.s)
			if strings.HasSuffix(s, " ") {
				t.Errorf("trailing space in %q", l.s)
			}
			if !l.code && len(indent)+ansi.StringWidth(l.s) > width {
				t.Errorf("line %q wider than %d", s, width)
			}
		}
		out := join(lines)
		if !color && (strings.Contains(out, "\x1b") || strings.Contains(out, "\u009b")) {
			t.Errorf("plain output has escape sequences: %q", out)
		}
		if strings.HasPrefix(out, "\n") || strings.HasSuffix(out, "\n") {
			t.Errorf("output starts or ends with a blank line: %q", out)
		}
	})
}

func FuzzHighlight(f *testing.F) {
	names := make([]string, 0, len(langs()))
	for name := range langs() {
		names = append(names, name)
	}
	slices.Sort(names)
	f.Add(uint8(0), "func f() { return `x` } // c")
	f.Add(uint8(1), "<a href='x'>&amp;</a><!-- c")
	f.Add(uint8(2), "'''\"\"\"\\'\\\"/* -- # $ ${ @x :y 'a 1e-5 0x1f")
	f.Add(uint8(3), "key: value\n- a: 'b'\n[t]\nx = 1979-05-27\n")
	f.Add(uint8(4), "--- a\n+++ b\n@@ x\n-y\n+z")
	f.Fuzz(func(t *testing.T, i uint8, code string) {
		code = sanitize(code)
		for _, name := range []string{names[int(i)%len(names)], "css", "html", "yaml", "toml", "rust"} {
			got := highlight(name, code)
			if s := ansi.Strip(got); s != code {
				t.Fatalf("highlight(%q) changed the text: %q, want %q", name, s, code)
			}
		}
	})
}
