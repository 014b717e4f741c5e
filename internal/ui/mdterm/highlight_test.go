package mdterm

import (
	"strings"
	"testing"
	"time"

	"github.com/charmbracelet/x/ansi"
)

func TestHighlight(t *testing.T) {
	type tok struct {
		text string
		st   style
	}
	tests := []struct {
		lang, code string
		want       []tok
	}{
		{"go", "// c\nfunc f(s string) int { return len(`r\nx`) + 0x1F } /* b */",
			[]tok{{"// c", cComment}, {"func", cKeyword}, {"f", cFunc}, {"string", cType},
				{"`r", cString}, {"x`", cString}, {"0x1F", cNumber}, {"/* b */", cComment}}},
		{"golang", `x := 'a' + "b\"c"`, []tok{{"'a'", cString}, {`"b\"c"`, cString}}},
		{"python", "@dec\ndef f():\n    '''doc\n    more'''\n    return f\"x\" # c\nx = 1.5e-3",
			[]tok{{"@dec", cAttr}, {"def", cKeyword}, {"'''doc", cString}, {"    more'''", cString},
				{"f", cString}, {`"x"`, cString}, {"# c", cComment}, {"1.5e-3", cNumber}}},
		{"js", "const a = `t ${x}`; // c\nconsole.log($el, 'q')",
			[]tok{{"const", cKeyword}, {"`t ${x}`", cString}, {"// c", cComment}, {"console", cType},
				{"log", cFunc}, {"'q'", cString}}},
		{"tsx", "interface A { b: string }", []tok{{"interface", cKeyword}, {"string", cType}}},
		{"rust", "fn f<'a>(x: &'a str) -> char { println!(\"{}\", 'x'); '\\n' }",
			[]tok{{"fn", cKeyword}, {"'a", cType}, {"str", cType}, {"println", cFunc},
				{`"{}"`, cString}, {"'x'", cString}, {"'\\n'", cString}}},
		{"c", "#include <stdio.h>\nint main(void) { return 0; }",
			[]tok{{"#include", cKeyword}, {"int", cKeyword}, {"main", cFunc}, {"0", cNumber}}},
		{"c++", "std::vector<int> v; auto p = nullptr;", []tok{{"std", cType}, {"nullptr", cKeyword}}},
		{"java", "@Override public String s() { return \"x\"; }",
			[]tok{{"@Override", cAttr}, {"public", cKeyword}, {"String", cType}, {`"x"`, cString}}},
		{"kotlin", "fun main() { val s = \"\"\"raw\"\"\" }", []tok{{"fun", cKeyword}, {`"""raw"""`, cString}}},
		{"swift", "guard let x = y else { return }", []tok{{"guard", cKeyword}, {"let", cKeyword}}},
		{"ruby", "def f(x) = x.nil? ? :none : @v # c", []tok{{"def", cKeyword}, {":none", cAttr},
			{"@v", cAttr}, {"# c", cComment}}},
		{"php", "<?php $x = 'a'; # c\necho $x;", []tok{{"$x", cAttr}, {"'a'", cString}, {"# c", cComment}, {"echo", cKeyword}}},
		{"bash", "if [ -n \"$X\" ]; then echo ${Y} # c\nfi\necho a#b",
			[]tok{{"if", cKeyword}, {`"$X"`, cString}, {"then", cKeyword}, {"${Y}", cAttr},
				{"# c", cComment}, {"fi", cKeyword}}},
		{"sql", "SELECT name FROM t WHERE id = 'x' -- c\n/* b */",
			[]tok{{"SELECT", cKeyword}, {"FROM", cKeyword}, {"'x'", cString}, {"-- c", cComment}, {"/* b */", cComment}}},
		{"yaml", "# c\nkey: value\nlist:\n  - name: \"q\"\n    on: true\n  - 12",
			[]tok{{"# c", cComment}, {"key", cAttr}, {"name", cAttr}, {`"q"`, cString}, {"on", cAttr},
				{"true", cKeyword}, {"12", cNumber}}},
		{"toml", "[server]\nport = 8080 # c\nname = \"x\"\nwhen = 1979-05-27T07:32:00Z",
			[]tok{{"[server]", cTag}, {"port", cAttr}, {"8080", cNumber}, {"# c", cComment},
				{`"x"`, cString}, {"1979-05-27T07:32:00Z", cNumber}}},
		{"json", `{"a": [1, -2.5e3, true, null], "b": "c"}`,
			[]tok{{`"a"`, cAttr}, {"1", cNumber}, {"2.5e3", cNumber}, {"true", cKeyword},
				{"null", cKeyword}, {`"c"`, cString}}},
		{"html", "<!-- c -->\n<a href=\"/x\" data-y=z>t &amp; u</a>",
			[]tok{{"<!-- c -->", cComment}, {"a", cTag}, {"href", cAttr}, {`"/x"`, cString},
				{"data-y", cAttr}, {"z", cString}, {"&amp;", cNumber}}},
		{"xml", "<?xml version=\"1.0\"?><r/>", []tok{{"xml", cTag}, {"version", cAttr}, {"r", cTag}}},
		{"css", "/* c */\n.a > b:hover, #id {\n  color: #fff;\n  margin: 0 1.5em !important;\n}\n@media screen {}",
			[]tok{{"/* c */", cComment}, {".a", cTag}, {"b:hover", cTag}, {"#id", cTag}, {"color", cAttr},
				{"#fff", cNumber}, {"1.5em", cNumber}, {"!important", cKeyword}, {"@media", cKeyword}}},
		{"diff", "--- a\n+++ b\n@@ -1 +1 @@\n-old\n+new\n same",
			[]tok{{"--- a", bold}, {"+++ b", bold}, {"@@ -1 +1 @@", cHunk}, {"-old", cRemoved}, {"+new", cAdded}}},
	}
	for _, tt := range tests {
		t.Run(tt.lang, func(t *testing.T) {
			got := highlight(tt.lang, tt.code)
			if s := ansi.Strip(got); s != tt.code {
				t.Fatalf("highlight changed the text:\n%q\nwant\n%q", s, tt.code)
			}
			for _, w := range tt.want {
				if !strings.Contains(got, paint(w.text, w.st, true)) {
					t.Errorf("%q not highlighted as %d in %q", w.text, w.st, got)
				}
			}
		})
	}
}

func TestHighlightUnknown(t *testing.T) {
	for _, lang := range []string{"", "nosuch", "text", "console"} {
		if got := highlight(lang, "func x() {}"); got != "func x() {}" {
			t.Errorf("highlight(%q) = %q, want the code as it is", lang, got)
		}
	}
}

func TestHighlightNoColorOnBlank(t *testing.T) {
	got := highlight("go", "/* a\n\n  b */")
	for l := range strings.Lines(got) {
		if l == "\n" {
			continue
		}
		if !strings.HasPrefix(l, "\x1b") {
			t.Errorf("line %q of a comment not painted on its own", l)
		}
	}
	if strings.Contains(got, "\x1b[m\x1b") {
		t.Logf("%q", got)
	}
}

// TestHighlightLinear runs the lexers on large inputs that would take
// minutes if any part of them were quadratic.
func TestHighlightLinear(t *testing.T) {
	const n = 20000
	inputs := []string{
		strings.Repeat(`"\`, n),
		strings.Repeat(`'a `, n),
		strings.Repeat("/*", n),
		strings.Repeat("<a b='", n),
		strings.Repeat("<", n),
		strings.Repeat("${", n),
		strings.Repeat("a: b\n", n),
		strings.Repeat("x = y\n[z\n", n),
		strings.Repeat(`"""`, n) + `"`,
		strings.Repeat("{a:b;", n),
		strings.Repeat("1e-", n),
		strings.Repeat("- ", n),
	}
	seen := map[*lang]bool{}
	start := time.Now()
	for name, l := range langs() {
		if seen[l] {
			continue
		}
		seen[l] = true
		for _, in := range inputs {
			if got := ansi.Strip(highlight(name, in)); got != in {
				t.Fatalf("highlight(%q) changed the text", name)
			}
		}
	}
	if d := time.Since(start); d > 20*time.Second {
		t.Errorf("highlighting took %v", d)
	}
}
