package history

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// open opens the history at path, failing the test on error.
func open(t *testing.T, path string) *History {
	t.Helper()
	h, err := Open(path)
	if err != nil {
		t.Fatalf("Open(%s): %v", path, err)
	}
	return h
}

// add adds texts, failing the test on error.
func add(t *testing.T, h *History, cwd string, texts ...string) {
	t.Helper()
	for _, s := range texts {
		if err := h.Add(s, cwd); err != nil {
			t.Fatalf("Add(%q): %v", s, err)
		}
	}
}

// texts returns the texts of all entries, newest first.
func texts(h *History) []string {
	var out []string
	for _, e := range h.Entries("") {
		out = append(out, e.Text)
	}
	return out
}

// fileLines returns the lines of the file, failing the test when one is not a valid
// record with a text.
func fileLines(t *testing.T, path string) []record {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var out []record
	for i, line := range strings.Split(strings.TrimSuffix(string(data), "\n"), "\n") {
		var r record
		if err := json.Unmarshal([]byte(line), &r); err != nil || r.Text == "" {
			t.Fatalf("line %d of the file is broken: %q", i+1, line)
		}
		out = append(out, r)
	}
	return out
}

func histPath(t *testing.T) string {
	return filepath.Join(t.TempDir(), "data", "history.jsonl")
}
