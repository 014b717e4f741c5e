package main

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/gantry-dev/gantry/internal/llm/fakellm"
)

// gantry rewind after print mode: --list names the prompt and what changed after it;
// rewind 1 brings the files back; a file changed since is named and kept.
func TestRewindAfterPrintMode(t *testing.T) {
	srv := fakellm.New(
		fakellm.Turn{Parts: []fakellm.Part{fakellm.ToolCall("b1", "bash", `{"command":"echo changed > note.txt && rm gone.txt && mkdir -p made && echo new > made/f.txt"}`)}},
		fakellm.Turn{Parts: []fakellm.Part{fakellm.Text("Changed them.")}},
	)
	defer srv.Close()
	dir := t.TempDir()
	for name, text := range map[string]string{"note.txt": "original\n", "gone.txt": "still here\n"} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	e := env(t, "ANTHROPIC_BASE_URL="+srv.URL(), "ANTHROPIC_API_KEY=test-key")
	if r := gantry(t, dir, e, "-p", "change the files", "--permission-mode", "yolo"); r.code != 0 {
		t.Fatalf("print mode: exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}
	r := gantry(t, dir, e, "rewind", "--list")
	// Each checkpoint with the time it was taken (the clock time today).
	if r.code != 0 || !regexp.MustCompile(`(?m)^  1  \d\d:\d\d  change the files$`).MatchString(r.stdout) || !strings.Contains(r.stdout, "M note.txt (+1 -1)") ||
		!strings.Contains(r.stdout, "D gone.txt") || !strings.Contains(r.stdout, "A made/f.txt") {
		t.Fatalf("rewind --list: exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}
	// A change by the person since: named, nothing written.
	if err := os.WriteFile(filepath.Join(dir, "made/f.txt"), []byte("the person's\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	r = gantry(t, dir, e, "rewind", "1")
	if r.code != 1 || !strings.Contains(r.stderr, "made/f.txt") || !strings.Contains(r.stderr, "--force") {
		t.Fatalf("a rewind over a person's change: exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}
	r = gantry(t, dir, e, "rewind", "--force", "1")
	if r.code != 0 || !strings.Contains(r.stdout, "Restored the files as they were before prompt 1") || !strings.Contains(r.stdout, "The conversation is back to before prompt 1") {
		t.Fatalf("rewind --force 1: exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}
	if b, _ := os.ReadFile(filepath.Join(dir, "note.txt")); string(b) != "original\n" {
		t.Errorf("note.txt: %q", b)
	}
	if b, _ := os.ReadFile(filepath.Join(dir, "gone.txt")); string(b) != "still here\n" {
		t.Errorf("gone.txt: %q", b)
	}
	if _, err := os.Stat(filepath.Join(dir, "made")); !os.IsNotExist(err) {
		t.Errorf("the folder made after the checkpoint is still there: %v", err)
	}
	if r := gantry(t, dir, e, "rewind", "zero"); r.code != 2 {
		t.Errorf("a bad number: exit %d", r.code)
	}
}
