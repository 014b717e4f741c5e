package walk

import "testing"

func TestGlobMatch(t *testing.T) {
	cases := []struct {
		pat, path string
		want      bool
	}{
		{"*.go", "a.go", true},
		{"*.go", "dir/a.go", false},
		{"**/*.go", "a.go", true},
		{"**/*.go", "x/y/a.go", true},
		{"**/*.go", "x/y/a.goo", false},
		{"src/**/*.ts", "src/a.ts", true},
		{"src/**/*.ts", "src/x/y/a.ts", true},
		{"src/**/*.ts", "lib/src/a.ts", false},
		{"src/**", "src/a/b", true},
		{"src/**", "src", true},
		{"**", "a/b/c", true},
		{"a/**/b", "a/b", true},
		{"a/**/b", "a/x/y/b", true},
		{"a/**/b", "a/x/y/c", false},
		{"**/node_modules/**", "x/node_modules/y/z.js", true},
		{"**/node_modules/**", "node_modules/z.js", true},
		{"**/node_modules/**", "x/node_modulesz/z.js", false},
		{"?.go", "a.go", true},
		{"?.go", "ab.go", false},
		{"?", "é", true},
		{"[abc].go", "b.go", true},
		{"[abc].go", "d.go", false},
		{"[!abc].go", "d.go", true},
		{"[^abc].go", "a.go", false},
		{"[a-c]x", "bx", true},
		{"[]a]x", "]x", true},
		{"[\\]]x", "]x", true},
		{"*.{go,rs}", "a.rs", true},
		{"*.{go,rs}", "a.py", false},
		{"{src,lib}/**/*.go", "lib/x/a.go", true},
		{"{a,{b,c}}x", "cx", true},
		{"\\*.go", "*.go", true},
		{"\\*.go", "a.go", false},
		{"a\\{b", "a{b", true},
		{"a*b*c", "aXXbYYc", true},
		{"a*b*c", "aXXbYY", false},
		{"a*b", "a/b", false},
		{"a**b", "axxb", true},
		{"a**b", "a/b", false},
		{"*", ".hidden", true},
		{"foo*", "foobar", true},
		{"foo*", "xfoo", false},
		{"*x*", "x", true},
		{"a/b", "a/b", true},
		{"a/b", "a/b/c", false},
		{"a/", "a", true},
		{"[[]", "[", true},
		{"*[0-9]", "ab7", true},
	}
	for _, c := range cases {
		g, err := CompileGlob(c.pat)
		if err != nil {
			t.Errorf("%q: %v", c.pat, err)
			continue
		}
		if got := g.Match(c.path); got != c.want {
			t.Errorf("%q match %q = %v, want %v", c.pat, c.path, got, c.want)
		}
	}
}

func TestGlobInvalid(t *testing.T) {
	for _, p := range []string{"", "[abc", "a{b", "a}b", "a\\", "[z-a]", "{a,[b}", "[\\"} {
		if _, err := CompileGlob(p); err == nil {
			t.Errorf("%q compiled", p)
		}
	}
}

func TestGlobBraceLimit(t *testing.T) {
	p := ""
	for range 11 {
		p += "{a,b}"
	}
	if _, err := CompileGlob(p); err == nil {
		t.Fatal("2^11 alternatives compiled")
	}
}
