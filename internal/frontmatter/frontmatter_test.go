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
