package history

import (
	"slices"
	"testing"
)

// step is one key press in the input box and what it should show.
type step struct {
	key  string // "up" (Prev with the box's text), "down" (Next), "reset" or "add:<text>"
	want string // the box's text afterwards
	ok   bool
}

func TestNavigation(t *testing.T) {
	cases := []struct {
		name    string
		entries []string // oldest first
		draft   string
		steps   []step
	}{
		{"empty history", nil, "typing", []step{
			{"up", "typing", false}, {"down", "typing", false},
		}},
		{"back to the oldest and forward to the draft", []string{"one", "two", "three"}, "draft", []step{
			{"up", "three", true}, {"up", "two", true}, {"up", "one", true},
			{"up", "one", false}, // stays at the oldest
			{"down", "two", true}, {"down", "three", true},
			{"down", "draft", true}, // the draft comes back
			{"down", "draft", false},
			{"up", "three", true}, // a new navigation from the draft
		}},
		{"empty draft", []string{"one"}, "", []step{
			{"up", "one", true}, {"down", "", true}, {"down", "", false},
		}},
		{"reset forgets the draft", []string{"one", "two"}, "draft", []step{
			{"up", "two", true}, {"reset", "two", false}, {"down", "two", false},
			{"up", "two", true}, {"down", "two", true}, // the box held "two" when navigation restarted
		}},
		{"add ends navigation", []string{"one", "two"}, "draft", []step{
			{"up", "two", true}, {"up", "one", true}, {"add:sent", "", false},
			{"up", "sent", true}, {"up", "two", true}, {"down", "sent", true}, {"down", "", true},
		}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			h := open(t, "")
			add(t, h, "/a", c.entries...)
			box := c.draft
			for i, s := range c.steps {
				var got string
				var ok bool
				switch {
				case s.key == "up":
					got, ok = h.Prev(box)
				case s.key == "down":
					got, ok = h.Next()
				case s.key == "reset":
					h.Reset()
				default:
					add(t, h, "/a", s.key[len("add:"):])
					box = "" // sent: the box is cleared
				}
				if ok {
					box = got
				}
				if box != s.want || ok != s.ok {
					t.Fatalf("step %d (%s): box %q ok %v, want %q %v", i, s.key, box, ok, s.want, s.ok)
				}
			}
		})
	}
}

func TestSearch(t *testing.T) {
	h := open(t, "")
	add(t, h, "/a", "git status", "go test ./...", "git diff", "git status", "gofmt")
	cases := map[string][]string{
		"git": {"git status", "git diff"},
		"go":  {"gofmt", "go test ./..."},
		"":    {"gofmt", "git status", "git diff", "go test ./..."},
		"x":   nil,
		"Git": nil,
	}
	for prefix, want := range cases {
		if got := h.Search(prefix); !slices.Equal(got, want) {
			t.Errorf("Search(%q) = %q, want %q", prefix, got, want)
		}
	}
}
