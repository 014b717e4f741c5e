package editdist

import "testing"

func TestDistance(t *testing.T) {
	for _, c := range []struct {
		a, b string
		want int
	}{
		{"", "", 0},
		{"stack", "stack", 0},
		{"stak", "stack", 1},     // an insert
		{"stakc", "stack", 1},    // a swap of neighbours
		{"comand", "command", 1}, // an insert
		{"kitten", "sitting", 3}, // two replaces and an insert
		{"", "abc", 3},           // inserts only
		{"héllo", "hello", 1},    // runes, not bytes
		{"ab", "ba", 1},          // a swap
		{"abc", "ca", 3},         // optimal string alignment: no edit of a swapped pair
	} {
		if got := Distance(c.a, c.b); got != c.want {
			t.Errorf("Distance(%q, %q) = %d, want %d", c.a, c.b, got, c.want)
		}
		if got := Distance(c.b, c.a); got != c.want {
			t.Errorf("Distance(%q, %q) = %d, want %d (not symmetric)", c.b, c.a, got, c.want)
		}
	}
}
