package walk

import "testing"

func TestIgnoreMatch(t *testing.T) {
	type probe struct {
		path  string
		isDir bool
		want  Verdict
	}
	cases := []struct {
		file   string
		probes []probe
	}{
		{"*.log\n", []probe{{"a.log", false, Exclude}, {"x/y/a.log", false, Exclude}, {"a.txt", false, None}}},
		{"/build\n", []probe{{"build", true, Exclude}, {"x/build", true, None}}},
		{"build/\n", []probe{{"build", true, Exclude}, {"build", false, None}, {"x/build", true, Exclude}}},
		{"doc/*.txt\n", []probe{{"doc/a.txt", false, Exclude}, {"doc/x/a.txt", false, None}, {"x/doc/a.txt", false, None}}},
		{"*.log\n!keep.log\n", []probe{{"a.log", false, Exclude}, {"keep.log", false, Include}, {"x/keep.log", false, Include}}},
		{"!keep.log\n*.log\n", []probe{{"keep.log", false, Exclude}}},
		{"# comment\n\n   \n\\#hash\n", []probe{{"# comment", false, None}, {"#hash", false, Exclude}}},
		{"\\!bang\n", []probe{{"!bang", false, Exclude}}},
		{"trail\\ \n", []probe{{"trail ", false, Exclude}, {"trail", false, None}}},
		{"sp   \n", []probe{{"sp", false, Exclude}}},
		{"**/foo\n", []probe{{"foo", false, Exclude}, {"a/b/foo", false, Exclude}}},
		{"foo/**\n", []probe{{"foo", true, None}, {"foo/a", false, Exclude}, {"foo/a/b", false, Exclude}}},
		{"a/**/b\n", []probe{{"a/b", false, Exclude}, {"a/x/y/b", false, Exclude}, {"x/a/b", false, None}}},
		{"*.{c,h}\n", []probe{{"x.c", false, Exclude}, {"x.h", false, Exclude}, {"x.o", false, None}}},
		{"[Bb]uild\n", []probe{{"Build", true, Exclude}, {"build", true, Exclude}}},
		{"crlf\r\n", []probe{{"crlf", false, Exclude}}},
		{"/\n!\n", []probe{{"x", false, None}}},
		{"[bad\nok\n", []probe{{"ok", false, Exclude}}},
		{"a\\[b\n", []probe{{"a[b", false, Exclude}}},
		{"dir\\/\n", []probe{{"dir/", false, None}}},
	}
	for _, c := range cases {
		ig := ParseIgnore([]byte(c.file))
		for _, p := range c.probes {
			if got := ig.Match(p.path, p.isDir); got != p.want {
				t.Errorf("%q: Match(%q, dir=%v) = %v, want %v", c.file, p.path, p.isDir, got, p.want)
			}
		}
	}
}

func TestNewIgnoreRefusesBadPattern(t *testing.T) {
	if _, err := NewIgnore([]string{"*.go", "[x"}); err == nil {
		t.Fatal("no error")
	}
	ig, err := NewIgnore([]string{"*.go", "!vendor/**"})
	if err != nil || ig.Whitelists() != 1 || ig.Empty() {
		t.Fatalf("%v %v", ig, err)
	}
}
