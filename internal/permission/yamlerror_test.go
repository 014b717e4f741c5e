package permission

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// A rules file that is not YAML is said in one line, with its path and line, and
// no lone "." under a quote of the file.
func TestRulesFileSyntaxErrorIsOneLine(t *testing.T) {
	path := filepath.Join(t.TempDir(), "permissions.yaml")
	if err := os.WriteFile(path, []byte("allow:\n  - \"bash:ls\n deny: [\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	_, err := loadRulesFile(path)
	if err == nil {
		t.Fatal("a broken rules file was read")
	}
	msg := err.Error()
	if strings.Contains(msg, "\n") || !strings.HasPrefix(msg, path+":2: ") {
		t.Errorf("the error is not one line naming %s:2:\n%s", path, msg)
	}
}
