package search

import (
	"regexp/syntax"
	"strings"
	"testing"
)

// Files larger than a read chunk: lines across chunk boundaries, a line longer than a
// chunk, and a NUL byte far from the first match.
func TestGrepAcrossChunks(t *testing.T) {
	dir := t.TempDir()
	filler := strings.Repeat("abcdefghij klmnopqrst uvwxyz 0123456789 filler line\n", 3*chunkSize/52)
	long := strings.Repeat("y", 3*chunkSize)
	writeFiles(t, dir, map[string]string{
		"a.txt":   filler + "needle at the end",
		"b.txt":   long + "needle in a long line\n" + filler + "needle again\n",
		"c.txt":   "needle first\n" + filler + "\x00",
		"d.txt":   filler,
		"e.txt":   strings.Repeat("needle\n", chunkSize/3),
		"f/g.txt": "x" + long + "\nneedle" + long,
	})
	r := call(t, Grep(testOpts), dir, A{"pattern": "needle"})
	wantOK(t, r)
	if want := "a.txt\nb.txt\ne.txt\nf/g.txt"; r.Text != want {
		t.Fatalf("files: got %q, want %q", r.Text, want)
	}
	r = call(t, Grep(testOpts), dir, A{"pattern": "needle", "output_mode": "count"})
	wantOK(t, r)
	if want := "a.txt:1\nb.txt:2\ne.txt:" + itoa(chunkSize/3) + "\nf/g.txt:1"; r.Text != want {
		t.Fatalf("count: got %q, want %q", r.Text, want)
	}
	r = call(t, Grep(testOpts), dir, A{"pattern": `^needle$`, "output_mode": "count"})
	wantOK(t, r)
	if want := "e.txt:" + itoa(chunkSize/3); r.Text != want {
		t.Fatalf("anchored count: got %q, want %q", r.Text, want)
	}
}

func itoa(n int) string {
	var b []byte
	for ; n > 0; n /= 10 {
		b = append([]byte{byte('0' + n%10)}, b...)
	}
	return string(b)
}

func TestFindWindow(t *testing.T) {
	for _, c := range []struct {
		pattern string
		n       int // window length, 0 for none
		anchor  string
		pure    bool
	}{
		{`[0-9]{4}-[0-9]{2}-[0-9]{2}`, 10, "-", true},
		{`\bx[0-9]{2}[a-z]`, 4, "x", false},
		{`a+b`, 2, "b", false},
		{`(?i)q\d`, 2, "Qq", true},
		{`(?i)k\d`, 0, "", false},
		{`[0-9]+`, 0, "", false},
		{`x.y`, 1, "x", false},
		{`ab|cd`, 0, "", false},
	} {
		tree, err := syntax.Parse(c.pattern, syntax.Perl)
		if err != nil {
			t.Fatal(err)
		}
		w := findWindow(tree.Simplify())
		if w == nil {
			if c.n != 0 {
				t.Errorf("%s: no window, want %d", c.pattern, c.n)
			}
			continue
		}
		if len(w.sets) != c.n || string(w.anchor) != c.anchor || w.pure != c.pure {
			t.Errorf("%s: window of %d anchored on %q pure %v, want %d %q %v", c.pattern, len(w.sets), w.anchor, w.pure, c.n, c.anchor, c.pure)
		}
	}
}
