package history

import (
	"os"
	"path/filepath"
	"slices"
	"testing"
	"time"
)

func TestRoundTripAcrossSessions(t *testing.T) {
	path := histPath(t)
	first := open(t, path)
	if got := texts(first); len(got) != 0 {
		t.Fatalf("new history holds %q", got)
	}
	first.now = func() time.Time { return time.Unix(1700000000, 5e8) }
	add(t, first, "/work/a", "fix the bug", "multi\nline <prompt> & \"quotes\"")

	second := open(t, path)
	add(t, second, "/work/b", "run the tests")
	want := []string{"run the tests", "multi\nline <prompt> & \"quotes\"", "fix the bug"}
	if got := texts(second); !slices.Equal(got, want) {
		t.Fatalf("second session: %q, want %q", got, want)
	}
	third := open(t, path)
	if got := texts(third); !slices.Equal(got, want) {
		t.Fatalf("third session: %q, want %q", got, want)
	}
	e := third.Entries("")[2]
	if e.Cwd != "/work/a" || !e.Time.Equal(time.Unix(1700000000, 0)) {
		t.Fatalf("oldest entry = %+v", e)
	}
	lines := fileLines(t, path)
	if len(lines) != 3 || lines[0].T != 1700000000 {
		t.Fatalf("file: %+v", lines)
	}
	fi, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	if perm := fi.Mode().Perm(); perm != 0o600 {
		t.Errorf("file mode %v, want 0600: prompts are private", perm)
	}
}

func TestCorruptLinesAreSkipped(t *testing.T) {
	path := filepath.Join(t.TempDir(), "history.jsonl")
	content := `{"t":1,"cwd":"/a","text":"one"}
not json at all
{"t":2,"cwd":"/a","text":""}
{"t":3,"cwd":"/a","text":"   "}

{"t":4,"cwd":"/a","text":"two"}
null
["text"]
{"t":"soon","text":"bad time"}
{"t":5,"cwd":"/a","text":"three"}` + "\r\n" + `{"t":6,"cwd":"/a","te`
	if err := os.WriteFile(path, []byte(content), 0o600); err != nil {
		t.Fatal(err)
	}
	h := open(t, path)
	if got, want := texts(h), []string{"three", "two", "one"}; !slices.Equal(got, want) {
		t.Fatalf("got %q, want %q", got, want)
	}
}

func TestRepeatsAreNotAdded(t *testing.T) {
	path := histPath(t)
	h := open(t, path)
	add(t, h, "/a", "ls", "ls", "", "  \n", "pwd", "ls", "ls")
	want := []string{"ls", "pwd", "ls"}
	if got := texts(h); !slices.Equal(got, want) {
		t.Fatalf("got %q, want %q", got, want)
	}
	if n := len(fileLines(t, path)); n != 3 {
		t.Fatalf("%d lines in the file, want 3", n)
	}
	// A repeat written by another process is dropped on load too.
	other := open(t, path)
	add(t, other, "/b", "make")
	add(t, h, "/a", "make")
	if got, want := texts(open(t, path)), []string{"make", "ls", "pwd", "ls"}; !slices.Equal(got, want) {
		t.Fatalf("reloaded: %q, want %q", got, want)
	}
}

func TestEntriesByFolder(t *testing.T) {
	h := open(t, histPath(t))
	add(t, h, "/work/a", "a1")
	add(t, h, "/work/b", "b1")
	add(t, h, "/work/a/", "a2")
	var got []string
	for _, e := range h.Entries("/work/a") {
		got = append(got, e.Text)
	}
	if want := []string{"a2", "a1"}; !slices.Equal(got, want) {
		t.Fatalf("Entries(/work/a) = %q, want %q", got, want)
	}
	if n := len(h.Entries("")); n != 3 {
		t.Fatalf("Entries(\"\") has %d entries, want 3", n)
	}
}

func TestMemoryOnly(t *testing.T) {
	h := open(t, "")
	add(t, h, "/a", "one", "two")
	if got, want := texts(h), []string{"two", "one"}; !slices.Equal(got, want) {
		t.Fatalf("got %q, want %q", got, want)
	}
}
