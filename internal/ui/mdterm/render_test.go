package mdterm

import (
	"strings"
	"testing"

	"github.com/charmbracelet/x/ansi"

	"github.com/gantry-dev/gantry/internal/testenv"
)

func TestRenderPlain(t *testing.T) {
	tests := []struct {
		name, in, want string
		width          int
	}{
		{name: "empty", in: "", want: ""},
		{name: "blank", in: " \n\n\t\n", want: ""},
		{name: "paragraphs", in: "one\ntwo\n\nthree", want: "  one two\n\n  three"},
		{name: "h1", in: "# Title #", want: "  Title\n  ====="},
		{name: "h2 setext", in: "Sub title\n---", want: "  Sub title\n  ---------"},
		{name: "h3", in: "### Third\ntext", want: "  Third\n\n  text"},
		{name: "emphasis", in: "*it* _it_ **bold** __bold__ ~~gone~~ `x := 1`",
			want: "  it it bold bold gone `x := 1`"},
		{name: "single tilde", in: "about ~5 ms to ~10 ms", want: "  about ~5 ms to ~10 ms"},
		{name: "link", in: "see [the docs](https://x.dev/docs)", want: "  see the docs (https://x.dev/docs)"},
		{name: "link same as text", in: "[https://x.dev](https://x.dev)", want: "  https://x.dev"},
		{name: "autolink", in: "<https://x.dev> and <me@x.dev>", want: "  https://x.dev and me@x.dev"},
		{name: "reference link", in: "[a][r]\n\n[r]: https://r.dev", want: "  a (https://r.dev)"},
		{name: "image", in: "![logo](l.png) ![](e.png)", want: "  [image: logo] (l.png) [image] (e.png)"},
		{name: "hard break", in: "one  \ntwo\\\nthree", want: "  one\n  two\n  three"},
		{name: "escapes and entities", in: `\*a\* &amp; &lt;b&gt; &copy; &#65;`, want: "  *a* & <b> © A"},
		{name: "inline html", in: "a <kbd>b</kbd> c", want: "  a <kbd>b</kbd> c"},
		{name: "html block", in: "<div>\n  <p>hi</p>\n</div>", want: "  <div>\n  <p>hi</p>\n  </div>"},
		{name: "bullets", in: "- a\n- b\n  - c\n    - d\n* e", want: "  • a\n  • b\n    • c\n      • d\n\n  • e"},
		{name: "ordered start", in: "7. a\n8. b", want: "  7. a\n  8. b"},
		{name: "ordered paren", in: "1) a\n2) b", want: "  1) a\n  2) b"},
		{name: "ordered widths", in: "9. a\n10. b", want: "   9. a\n  10. b"},
		{name: "loose list", in: "- a\n\n- b", want: "  • a\n\n  • b"},
		{name: "tasks", in: "- [ ] todo\n- [x] done\n- [X] also", want: "  • [ ] todo\n  • [x] done\n  • [x] also"},
		{name: "list continuation", width: 20, in: "- aaaa bbbb cccc dddd eeee",
			want: "  • aaaa bbbb cccc\n    dddd eeee"},
		{name: "ordered continuation", width: 20, in: "10. aaaa bbbb cccc dddd",
			want: "  10. aaaa bbbb cccc\n      dddd"},
		{name: "quote", in: "> a\n>\n> b\n> > c", want: "  > a\n  >\n  > b\n  >\n  > > c"},
		{name: "fenced code", in: "```go\nx := 1   \n\n\ty()\n```", want: "    x := 1\n\n        y()"},
		{name: "tilde fence unknown lang", in: "~~~nosuch\nplain\n~~~", want: "    plain"},
		{name: "indented code", in: "text\n\n    code  here\n", want: "  text\n\n    code  here"},
		{name: "empty code", in: "```\n```", want: ""},
		{name: "code in list", in: "- a\n\n  ```\n  x\n  ```", want: "  • a\n\n      x"},
		{name: "long code line", width: 20, in: "```\n" + strings.Repeat("x", 30) + "\n```",
			want: "    " + strings.Repeat("x", 30)},
		{name: "thematic break", width: 20, in: "a\n\n***\n\nb", want: "  a\n\n  " + strings.Repeat("-", 18) + "\n\n  b"},
		{name: "table", in: "| a | bb |\n|---|---:|\n| ccc | d |\n| `e\\|f` | |",
			want: "  a     | bb\n  ------+---\n  ccc   |  d\n  `e|f` |"},
		{name: "table center", in: "|x|\n|:-:|\n|abc|", want: "   x\n  ---\n  abc"},
		{name: "table extra cells", in: "a|b\n-|-\n1|2|3\n4", want: "  a | b\n  --+--\n  1 | 2\n  4 |"},
		{name: "table after text", in: "intro\n| a |\n| - |\n| b |", want: "  intro\n\n  a\n  -\n  b"},
		{name: "not a table", in: "a | b\n-- x --", want: "  a | b -- x --"},
		{name: "table fallback", width: 20,
			in:   "| key | value |\n|---|---|\n| one | a long value that does not fit |\n| two | |",
			want: "  key: one\n  value: a long\n    value that does\n    not fit\n\n  key: two\n  value:"},
		{name: "header only table too wide", width: 20,
			in:   "| aaaaaaaa | bbbbbbbbb |\n|---|---|",
			want: "  aaaaaaaa\n  bbbbbbbbb"},
		{name: "long word", width: 20, in: "see https://example.com/a/very/long/path ok",
			want: "  see https://exampl\n  e.com/a/very/long/\n  path ok"},
		{name: "control characters", in: "a\x1b[31mb\x07c\u009bd\r\ne", want: "  a[31mbcd e"},
		{name: "entity control", in: "a&#27;[2Jb &#x9b;c", want: "  a[2Jb c"},
		{name: "invalid utf8", in: "a\xffb", want: "  a\uFFFDb"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			w := tt.width
			if w == 0 {
				w = 40
			}
			got := Render(tt.in, Options{Width: w})
			if got != tt.want {
				t.Errorf("Render(%q)\ngot:\n%s\nwant:\n%s\n(%q)", tt.in, got, tt.want, got)
			}
			checkLines(t, got, w, false)
		})
	}
}

func TestRenderColor(t *testing.T) {
	tests := []struct {
		name, in, plain string
		want            []string // escape sequences that must appear
	}{
		{name: "bold", in: "**b**", plain: "  b", want: []string{"\x1b[1m"}},
		{name: "italic", in: "*i*", plain: "  i", want: []string{"\x1b[3m"}},
		{name: "strike", in: "~~s~~", plain: "  s", want: []string{"\x1b[9m"}},
		{name: "code span", in: "`c`", plain: "  c", want: []string{"38;2;255;158;100m"}},
		{name: "heading", in: "# H", plain: "  H", want: []string{"38;2;122;162;247", ";4"}},
		{name: "quote", in: "> q", plain: "  │ q", want: []string{"\x1b[2m│"}},
		{name: "rule", in: "---", plain: "  " + strings.Repeat("─", 18)},
		{name: "table", in: "|a|b|\n|-|-|\n|c|d|", plain: "  a │ b\n  ──┼──\n  c │ d"},
		{name: "code", in: "```go\nfunc f() {}\n```", plain: "    func f() {}", want: []string{"38;2;187;154;247mfunc"}},
		{name: "no injection", in: "a\x1b[31mb", plain: "  a[31mb"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := Render(tt.in, Options{Width: 20, Color: true})
			if s := ansi.Strip(got); s != tt.plain {
				t.Errorf("Render(%q) without escapes = %q, want %q", tt.in, s, tt.plain)
			}
			for _, w := range tt.want {
				if !strings.Contains(got, w) {
					t.Errorf("Render(%q) = %q, want it to hold %q", tt.in, got, w)
				}
			}
			if strings.Contains(got, "\x1b[31m") {
				t.Errorf("Render(%q) = %q lets an escape sequence through", tt.in, got)
			}
			checkLines(t, got, 20, true)
		})
	}
}

func TestWrapDisplayWidth(t *testing.T) {
	tests := []struct {
		name, in string
		width    int
		want     string
	}{
		{name: "emoji", width: 20, in: "🎉🎉🎉 party 🎉🎉🎉🎉 time 🎉🎉",
			want: "  🎉🎉🎉 party\n  🎉🎉🎉🎉 time 🎉🎉"},
		{name: "flags and families", width: 20, in: "🇫🇷🇩🇪 👨‍👩‍👧‍👦👨‍👩‍👧‍👦 ok ok ok ok",
			want: "  🇫🇷🇩🇪 👨‍👩‍👧‍👦👨‍👩‍👧‍👦 ok ok ok\n  ok"},
		{name: "cjk breaks anywhere", width: 20, in: "日本語のテキストは単語の間にスペースがない",
			want: "  日本語のテキストは\n  単語の間にスペース\n  がない"},
		{name: "cjk punctuation stays with its character", width: 20, in: "日本語のテキストは。単語",
			want: "  日本語のテキスト\n  は。単語"},
		{name: "cjk and latin", width: 20, in: "abc 中文字符 defgh 中文",
			want: "  abc 中文字符 defgh\n  中文"},
		{name: "accents", width: 20, in: "éééé èèèè àààà ùùùù",
			want: "  éééé èèèè àààà\n  ùùùù"},
		{name: "combining", width: 20, in: "e\u0301e\u0301e\u0301 aaaa bbbb cccc d",
			want: "  e\u0301e\u0301e\u0301 aaaa bbbb cccc\n  d"},
		{name: "wide long word", width: 20, in: strings.Repeat("字", 12),
			want: "  " + strings.Repeat("字", 9) + "\n  " + strings.Repeat("字", 3)},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := Render(tt.in, Options{Width: tt.width})
			if got != tt.want {
				t.Errorf("got:\n%s\nwant:\n%s", got, tt.want)
			}
			checkLines(t, got, tt.width, false)
		})
	}
}

func TestWidthDefaults(t *testing.T) {
	long := strings.Repeat("word ", 40)
	for _, tt := range []struct{ in, want int }{{0, 80}, {-5, 80}, {5, 20}, {20, 20}, {100, 100}} {
		got := Render(long, Options{Width: tt.in})
		maxW := 0
		for l := range strings.Lines(got) {
			maxW = max(maxW, ansi.StringWidth(strings.TrimSuffix(l, "\n")))
		}
		if maxW > tt.want || maxW < tt.want-6 {
			t.Errorf("Width %d: widest line %d columns, want about %d", tt.in, maxW, tt.want)
		}
	}
}

func TestDeepNesting(t *testing.T) {
	for _, in := range []string{
		strings.Repeat(">", 50) + " deep quote with some words to wrap around",
		strings.Repeat("- ", 30) + "deep list with some words to wrap around",
		func() string {
			var b strings.Builder
			for i := range 20 {
				b.WriteString(strings.Repeat("  ", i) + "123456789. item with words\n")
			}
			return b.String()
		}(),
	} {
		for _, color := range []bool{false, true} {
			got := Render(in, Options{Width: 20, Color: color})
			if !strings.Contains(ansi.Strip(got), "words") {
				t.Errorf("Render(%q) lost the text: %q", in, got)
			}
			checkLines(t, got, 20, color)
		}
	}
}

// checkLines checks the rules every rendering keeps: no escape sequences in
// plain text, no blank lines at the ends, no trailing spaces, no line wider
// than width unless it is code (indented by 4 or more).
func checkLines(t *testing.T, out string, width int, color bool) {
	t.Helper()
	if !color && (strings.Contains(out, "\x1b") || strings.Contains(out, "\u009b")) {
		t.Errorf("plain output has escape sequences: %q", out)
	}
	if strings.HasPrefix(out, "\n") || strings.HasSuffix(out, "\n") {
		t.Errorf("output starts or ends with a blank line: %q", out)
	}
	for l := range strings.Lines(out) {
		l = strings.TrimSuffix(l, "\n")
		s := ansi.Strip(l)
		if strings.HasSuffix(s, " ") || strings.HasSuffix(s, "\t") {
			t.Errorf("trailing space in %q", l)
		}
		if w := ansi.StringWidth(l); w > width && !strings.HasPrefix(s, "    ") {
			t.Errorf("line %q is %d columns, wider than %d", s, w, width)
		}
	}
}

// TestConcurrent renders from several goroutines at once (for -race): the
// parser, the style cache and the keyword sets are shared.
func TestConcurrent(t *testing.T) {
	in := "# T\n\n**b** `c` ~~s~~\n\n```go\nfunc f() {}\n```\n\n```sql\nSELECT 1\n```\n\n|a|b|\n|-|-|\n|1|2|"
	want := Render(in, Options{Width: 40, Color: true})
	done := make(chan string)
	for range 8 {
		go func() { done <- Render(in, Options{Width: 40, Color: true}) }()
	}
	for range 8 {
		if got := testenv.Recv(t, done, testenv.Bound, "a concurrent Render"); got != want {
			t.Errorf("concurrent Render = %q, want %q", got, want)
		}
	}
}
