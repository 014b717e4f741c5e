package frontmatter

import "testing"

func TestSplit(t *testing.T) {
	for _, c := range []struct {
		in, block, body string
		ok              bool
	}{
		{"---\nname: a\n---\nbody\n", "name: a\n", "body\n", true},
		{"\uFEFF---\r\nname: a\r\n--- \r\nbody", "name: a\n", "body", true},
		{"---\nname: a\n---", "name: a\n", "", true},
		{"---\n---\n", "", "", true},
		{"---\nname: a\nno end\n", "", "---\nname: a\nno end\n", false},
		{"---\n", "", "---\n", false},
		{"# title\n---\n", "", "# title\n---\n", false},
	} {
		block, body, ok := Split(c.in)
		if block != c.block || body != c.body || ok != c.ok {
			t.Errorf("Split(%q) = %q, %q, %v; want %q, %q, %v", c.in, block, body, ok, c.block, c.body, c.ok)
		}
	}
}

// Decode gives the keys of a block, nothing for an empty one, and for a block that is
// not a mapping of keys one line naming the file's line or what it is instead.
func TestDecode(t *testing.T) {
	for _, c := range []struct {
		block, err string
		keys       int
	}{
		{"name: a\ntools: [x, y]\n", "", 2},
		{"", "", 0},
		{"# only a comment\n", "", 0},
		{"name: a\ntools: [x, y\n", "line 3: sequence end token ']' not found", 0},
		{"- a\n- b\n", "it is a list, not a mapping of keys such as name and description", 0},
		{"just words\n", "it is a string, not a mapping of keys such as name and description", 0},
	} {
		fields, err := Decode(c.block)
		got := ""
		if err != nil {
			got = err.Error()
		}
		if got != c.err || fields == nil || len(fields) != c.keys {
			t.Errorf("Decode(%q) = %v, %q; want %d keys, %q", c.block, fields, got, c.keys, c.err)
		}
	}
}
