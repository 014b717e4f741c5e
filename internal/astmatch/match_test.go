package astmatch

import (
	"context"
	"fmt"
	"sort"
	"strings"
	"testing"

	"github.com/gantry-dev/gantry/internal/syntax"
)

func needParser(t *testing.T) {
	t.Helper()
	if !syntax.Available {
		t.Skip("a build without cgo cannot parse")
	}
}

// find returns each match as "text" (and its captures, sorted).
func find(t *testing.T, lang, pattern, src string) []string {
	t.Helper()
	l := syntax.Lookup(lang)
	p, err := Compile(context.Background(), l, pattern)
	if err != nil {
		t.Fatalf("%s %q: %v", lang, pattern, err)
	}
	tree, err := syntax.Parse(context.Background(), l, []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, m := range p.FindAll(tree) {
		s := string(tree.Text(m.Node))
		var caps []string
		for k, v := range m.Single {
			caps = append(caps, k+"="+string(tree.Text(v)))
		}
		for k, v := range m.Multi {
			var parts []string
			for _, i := range v {
				parts = append(parts, string(tree.Text(i)))
			}
			caps = append(caps, k+"=["+strings.Join(parts, " ")+"]")
		}
		sort.Strings(caps)
		if len(caps) > 0 {
			s += " {" + strings.Join(caps, "; ") + "}"
		}
		out = append(out, s)
	}
	return out
}

func TestMatches(t *testing.T) {
	needParser(t)
	for _, c := range []struct {
		lang, pattern, src string
		want               []string
	}{
		// A bare call in Go: ast-grep's CLI parses it as a type conversion; the
		// statement scaffold does not.
		{"go", "fmt.Println($$$A)", "package p\nfunc f() {\n\tfmt.Println(\"a\", b)\n\tfmt.Println()\n\tfmt.Printf(\"x\")\n}\n",
			[]string{`fmt.Println("a", b) {A=["a" , b]}`, "fmt.Println() {A=[]}"}},
		{"go", "if err != nil { return $E }", "package p\nfunc f() error {\n\tif err != nil {\n\t\treturn err // why\n\t}\n\tif err != nil { return fmt.Errorf(\"x: %w\", err) }\n\tif err != nil { log(err); return nil }\n\treturn nil\n}\n",
			[]string{"if err != nil {\n\t\treturn err // why\n\t} {E=err}", "if err != nil { return fmt.Errorf(\"x: %w\", err) } {E=fmt.Errorf(\"x: %w\", err)}"}},
		// A repeated metavariable must capture the same text; $_ binds nothing.
		{"python", "$A == $A", "x == x\nx == y\nf(a) == f(a)\n", []string{"x == x {A=x}", "f(a) == f(a) {A=f(a)}"}},
		{"python", "$_ == $_", "x == x\nx == y\n", []string{"x == x", "x == y"}},
		// Never inside a string or a comment.
		{"javascript", "console.log($A)", "console.log(1)\n// console.log(2)\nlet s = \"console.log(3)\"\n", []string{"console.log(1) {A=1}"}},
		// Nested matches are all found.
		{"javascript", "foo($A)", "foo(foo(x))\n", []string{"foo(foo(x)) {A=foo(x)}", "foo(x) {A=x}"}},
		// A method is a class member.
		{"typescript", "async $M($$$P) { $$$B }", "class C {\n  async load(a: string) { return a }\n  sync() {}\n}\n",
			[]string{"async load(a: string) { return a } {B=[return a]; M=load; P=[a: string]}"}},
		// A decorator.
		{"python", "@$D", "@cache\ndef f(): pass\n@app.route('/')\ndef g(): pass\n", []string{"@cache {D=cache}", "@app.route('/') {D=app.route('/')}"}},
		// JSX.
		{"tsx", "<Button $$$P>$$$C</Button>", "const a = <Button kind=\"x\">Go</Button>;\nconst b = <Link>No</Link>;\n",
			[]string{"<Button kind=\"x\">Go</Button> {C=[Go]; P=[kind=\"x\"]}"}},
		// A run keeps its separators and stops before the goal after it.
		{"javascript", "foo($$$A, c)", "foo(a, b, c)\nfoo(c)\nfoo(a, b)\n", []string{"foo(a, b, c) {A=[a , b]}", "foo(c) {A=[]}"}},
		// $$$ twice with the same name: compared on named nodes.
		{"python", "f($$$A) + f($$$A)", "f(1, 2) + f(1, 2)\nf(1) + f(2)\n", []string{"f(1, 2) + f(1, 2) {A=[1 , 2]}"}},
		// Comments and layout are ignored.
		{"go", "x := $V", "package p\nfunc f() {\n\tx := /* c */ g(\n\t\t1,\n\t)\n}\n", []string{"x := /* c */ g(\n\t\t1,\n\t) {V=g(\n\t\t1,\n\t)}"}},
		// Smart: trailing nodes may remain.
		{"rust", "let $A = 1", "fn f() { let a = 1; let b = 2; }\n", []string{"let a = 1; {A=a}"}},
		// Matches outside an error node are still found.
		{"c", "printf($$$A)", "int main(void) { printf(\"%d\", 1); int x = ; printf(\"y\"); }\n",
			[]string{"printf(\"%d\", 1) {A=[\"%d\" , 1]}", "printf(\"y\") {A=[\"y\"]}"}},
	} {
		got := find(t, c.lang, c.pattern, c.src)
		if fmt.Sprint(got) != fmt.Sprint(c.want) {
			t.Errorf("%s %q:\n got %q\nwant %q", c.lang, c.pattern, got, c.want)
		}
	}
}

func TestUnparseable(t *testing.T) {
	needParser(t)
	for _, c := range []struct{ lang, pattern, want string }{
		{"go", "func (", "does not parse as go"},
		{"python", "$$$A", "matches no single node"},
		{"typescript", "<div>$A</div>", "does not parse as typescript"},
		{"go", "   ", "empty"},
	} {
		_, err := Compile(context.Background(), syntax.Lookup(c.lang), c.pattern)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s %q: %v, want %q", c.lang, c.pattern, err, c.want)
		}
	}
}

func TestPreprocess(t *testing.T) {
	for in, want := range map[string]string{
		"$A + $$B":    "µA + µµB",
		"f($$$ARGS)":  "f(µµµARGS)",
		"g($$$)":      "g(µµµ)",
		"$a + $1 + $": "$a + $1 + $",
		"x = \"$$$\"": "x = \"µµµ\"",
		"$_ == $_X":   "µ_ == µ_X",
	} {
		if got := preprocess("µ", in); got != want {
			t.Errorf("preprocess(%q) = %q, want %q", in, got, want)
		}
	}
}

// Each language's ladder: a fragment that only a scaffold accepts is parsed by it, and
// found where it stands in a file.
func TestScaffoldLadders(t *testing.T) {
	needParser(t)
	for _, c := range []struct {
		lang, pattern, scaffold, src, want string
	}{
		{"go", "fmt.Println($A)", "statement", "package p\nfunc f() { fmt.Println(1) }\n", "fmt.Println(1)"},
		{"go", "func $F() {}", "declaration", "package p\nfunc a() {}\nfunc b() int { return 1 }\n", "func a() {}"},
		{"go", "[]int{$$$A}", "statement", "package p\nvar x = []int{1, 2}\n", "[]int{1, 2}"},
		{"python", "def $M(self): $$$B", "", "class C:\n    def m(self):\n        pass\n", "def m(self):\n        pass"},
		{"python", "@$D", "decorator", "@cache\ndef f(): pass\n", "@cache"},
		{"javascript", "async $M() { $$$B }", "class member", "class C { async run() { go() } }\n", "async run() { go() }"},
		{"typescript", "private $F: $T", "class member", "class C { private n: number; }\n", "private n: number"},
		{"rust", "fn $F(&self) -> $T { $$$B }", "", "impl S { fn get(&self) -> u8 { 1 } }\n", "fn get(&self) -> u8 { 1 }"},
		{"java", "public void $M() { $$$B }", "", "class A { public void run() { go(); } }\n", "public void run() { go(); }"},
		{"cpp", "std::vector<$T> $V;", "", "void f() { std::vector<int> v; }\n", "std::vector<int> v;"},
		{"c", "return $E;", "", "int f(void) { return 1; }\n", "return 1;"},
		{"dart", "print($A);", "statement", "void main() { print(1); }\n", "print(1);"},
		{"ruby", "def $M; $$$B; end", "", "class A\n  def m; 1; end\nend\n", "def m; 1; end"},
		{"css", "color: $C;", "", "a { color: red; }\n", "color: red;"},
		{"json", "\"a\": 1", "object member", "{\"a\": 1, \"b\": 2}", "\"a\": 1"},
	} {
		l := syntax.Lookup(c.lang)
		p, err := Compile(context.Background(), l, c.pattern)
		if err != nil {
			t.Errorf("%s %q: %v", c.lang, c.pattern, err)
			continue
		}
		if p.Scaffold != c.scaffold {
			t.Errorf("%s %q: parsed as %q, want %q", c.lang, c.pattern, p.Scaffold, c.scaffold)
		}
		got := find(t, c.lang, c.pattern, c.src)
		if len(got) == 0 || !strings.HasPrefix(got[0], c.want) {
			t.Errorf("%s %q: found %q, want %q", c.lang, c.pattern, got, c.want)
		}
	}
}

func TestMayMatch(t *testing.T) {
	needParser(t)
	p, err := Compile(context.Background(), syntax.Lookup("typescript"), "$A as $T")
	if err != nil {
		t.Fatal(err)
	}
	for src, want := range map[string]bool{
		"const x = y as any":    true,
		"class Base {}; has(x)": false, // "as" only inside words
		"x as\tT":               true,
		"f(a)as T":              true,
		"const éas = 1":         true, // next to a non-ASCII letter: let through
		"":                      false,
	} {
		if got := p.MayMatch([]byte(src)); got != want {
			t.Errorf("MayMatch(%q) = %v, want %v", src, got, want)
		}
	}
}
