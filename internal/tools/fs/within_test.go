package fs

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/gantry-dev/gantry/internal/tool"
)

// read_file of a huge file — many lines, lines past the line cap, multi-byte text,
// numbered or not — stays within maxOut characters by itself, its closing note
// included, so the loop's bound never cuts it.
func TestReadFileStaysWithinTheBound(t *testing.T) {
	dir := t.TempDir()
	var b strings.Builder
	for i := range 5000 {
		b.WriteString(strings.Repeat("é", i%7000) + "\n")
	}
	if err := os.WriteFile(filepath.Join(dir, "huge.txt"), []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, maxOut := range []int{1000, 5000, 30000} {
		for _, args := range []A{{"path": "huge.txt"}, {"path": "huge.txt", "numbered": true}, {"path": "huge.txt", "start": 4000}} {
			r := call(t, ReadFile(Options{MaxOutput: maxOut}), dir, args)
			if r.IsError {
				t.Fatalf("%v: %s", args, r.Text)
			}
			if n := utf8.RuneCountInString(r.Text); n > maxOut || tool.Bound(r.Text, maxOut) != r.Text {
				t.Errorf("maxOutput %d, %v: %d characters", maxOut, args, n)
			}
			if !strings.Contains(r.Text, "Continue with start=") {
				t.Errorf("maxOutput %d, %v: no note saying where to go on", maxOut, args)
			}
		}
	}
}
