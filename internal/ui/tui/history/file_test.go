package history

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestCapAndCompaction(t *testing.T) {
	path := histPath(t)
	h := open(t, path)
	for i := range compactAt {
		add(t, h, "/a", fmt.Sprint("prompt ", i))
	}
	if n := len(h.Entries("")); n != maxEntries {
		t.Fatalf("%d entries in memory, want %d", n, maxEntries)
	}
	if n := len(fileLines(t, path)); n != compactAt {
		t.Fatalf("%d lines before compaction, want %d", n, compactAt)
	}
	add(t, h, "/a", "the last")
	lines := fileLines(t, path)
	if len(lines) != maxEntries {
		t.Fatalf("%d lines after compaction, want %d", len(lines), maxEntries)
	}
	if first, last := lines[0].Text, lines[len(lines)-1].Text; first != "prompt 1001" || last != "the last" {
		t.Fatalf("compacted file runs from %q to %q", first, last)
	}
	if got := h.Entries("")[0].Text; got != "the last" {
		t.Fatalf("newest in memory %q", got)
	}
	matches, _ := filepath.Glob(filepath.Join(filepath.Dir(path), "*.tmp"))
	if len(matches) != 0 {
		t.Fatalf("temporary files left: %q", matches)
	}
	// The count restarts from the compacted file: no compaction before 2000 lines again.
	again := open(t, path)
	add(t, again, "/a", "one more")
	if n := len(fileLines(t, path)); n != maxEntries+1 {
		t.Fatalf("%d lines, want %d", n, maxEntries+1)
	}
}

func TestLargeFileKeepsTheNewest(t *testing.T) {
	path := filepath.Join(t.TempDir(), "history.jsonl")
	var buf bytes.Buffer
	long := strings.Repeat("x", 1000)
	for i := 0; buf.Len() < maxLoad+maxLoad/4; i++ {
		fmt.Fprintf(&buf, `{"t":%d,"cwd":"/a","text":"%d %s"}`+"\n", i, i, long)
	}
	fmt.Fprintf(&buf, `{"t":1,"cwd":"/a","text":"newest"}`+"\n")
	if err := os.WriteFile(path, buf.Bytes(), 0o600); err != nil {
		t.Fatal(err)
	}
	h := open(t, path)
	entries := h.Entries("")
	if len(entries) == 0 || entries[0].Text != "newest" {
		t.Fatalf("newest entry missing")
	}
	if len(entries) > maxLoad/1000 {
		t.Fatalf("%d entries read from the last 4 MiB of %d-byte lines", len(entries), 1030)
	}
	// The first Add compacts the oversized file.
	add(t, h, "/a", "after")
	lines := fileLines(t, path)
	if len(lines) > maxEntries || lines[len(lines)-1].Text != "after" {
		t.Fatalf("not compacted: %d lines ending with %q", len(lines), lines[len(lines)-1].Text)
	}
}

func TestUnwritableFolder(t *testing.T) {
	dir := t.TempDir()
	blocker := filepath.Join(dir, "file")
	if err := os.WriteFile(blocker, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	cases := map[string]string{"folder is a file": filepath.Join(blocker, "history.jsonl")}
	if os.Geteuid() != 0 { // root writes anywhere
		ro := filepath.Join(dir, "ro")
		if err := os.Mkdir(ro, 0o500); err != nil {
			t.Fatal(err)
		}
		cases["read-only folder"] = filepath.Join(ro, "history.jsonl")
	}
	for name, path := range cases {
		t.Run(name, func(t *testing.T) {
			h := open(t, path)
			err := h.Add("hello", "/a")
			if err == nil {
				t.Fatal("no error")
			}
			msg := err.Error()
			if !strings.HasPrefix(msg, "cannot save the prompt history in "+path+": ") || strings.Contains(msg, "\n") || strings.Count(msg, path) != 1 {
				t.Fatalf("error is not one sentence naming the file once: %q", msg)
			}
			if name == "read-only folder" && !errors.Is(err, fs.ErrPermission) {
				t.Errorf("errors.Is(err, fs.ErrPermission) is false for %q", msg)
			}
			if got := texts(h); len(got) != 1 {
				t.Fatalf("the prompt is not kept in memory: %q", got)
			}
		})
	}
}

func TestUnreadableFile(t *testing.T) {
	dir := t.TempDir()
	if _, err := Open(dir); err == nil || strings.Contains(err.Error(), "\n") {
		t.Fatalf("Open of a folder: %v", err)
	}
}

func TestLineCutShortIsNotSwallowed(t *testing.T) {
	path := filepath.Join(t.TempDir(), "history.jsonl")
	if err := os.WriteFile(path, []byte(`{"t":1,"text":"one"}`+"\n"+`{"t":2,"te`), 0o600); err != nil {
		t.Fatal(err)
	}
	add(t, open(t, path), "/a", "two")
	if got := texts(open(t, path)); len(got) != 2 || got[0] != "two" || got[1] != "one" {
		t.Fatalf("got %q", got)
	}
}
