package history

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func FuzzLoad(f *testing.F) {
	f.Add([]byte(`{"t":1,"cwd":"/a","text":"one"}` + "\n" + `{"t":2,"cwd":"/a","text":"two"}` + "\n"))
	f.Add([]byte("not json\n\n{\"text\":\"x\"}\r\n{\"text\":\"x\"}"))
	f.Add([]byte(`{"t":-9223372036854775808,"text":"\u0000\ud800"}`))
	f.Add([]byte("\n\n\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		path := filepath.Join(t.TempDir(), "history.jsonl")
		if err := os.WriteFile(path, data, 0o600); err != nil {
			t.Fatal(err)
		}
		h, err := Open(path)
		if err != nil {
			t.Fatalf("Open failed on content: %v", err)
		}
		entries := h.Entries("")
		if len(entries) > maxEntries {
			t.Fatalf("%d entries", len(entries))
		}
		for i, e := range entries {
			if strings.TrimSpace(e.Text) == "" {
				t.Fatalf("entry %d is blank", i)
			}
			if i > 0 && entries[i-1].Text == e.Text {
				t.Fatalf("entries %d and %d repeat %q", i-1, i, e.Text)
			}
		}
		// What was loaded survives a write and a reload.
		if err := h.Add("fuzz", "/f"); err != nil {
			t.Fatal(err)
		}
		again, err := Open(path)
		if err != nil {
			t.Fatal(err)
		}
		if got := again.Entries(""); len(got) == 0 || got[0].Text != "fuzz" {
			t.Fatalf("the added entry is not the newest after reload")
		}
	})
}
