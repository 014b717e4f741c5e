package refs

import (
	"os"
	"path/filepath"
	"testing"
)

// write creates dir/rel with content, making its folders, and returns its path.
func write(t testing.TB, dir, rel, content string) string {
	t.Helper()
	p := filepath.Join(dir, rel)
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

// expand runs Expand in dir with a bound of 30000 characters.
func expand(dir, prompt string) Result {
	return Expand(prompt, Options{Cwd: dir, MaxOutput: 30000})
}
