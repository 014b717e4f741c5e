package mcpserve

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/gantry-dev/gantry/internal/app"
)

// syncBuffer is a log written by the server's goroutines.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// gantry mcp has nobody to ask whether to trust a folder: a project's PreToolUse hook
// does not run, and one line of its log names --trust; with --trust (Options.Trust) it
// runs.
func TestUntrustedFolderRunsNoHook(t *testing.T) {
	dir := project(t)
	write(t, dir, ".git/HEAD", "ref: refs/heads/main\n")
	write(t, dir, ".claude/settings.json", `{"hooks": {"PreToolUse": [{"hooks": [{"type": "command", "command": "touch hook-ran"}]}]}}`)
	for _, trust := range []bool{false, true} {
		log := &syncBuffer{}
		s, err := New(Options{App: app.Options{Cwd: dir, Trust: trust}, Version: "test", Log: log})
		if err != nil {
			t.Fatal(err)
		}
		cs := connect(t, s, nil)
		if out, r := call(t, cs, "read_file", map[string]any{"path": "notes.txt"}); r.IsError {
			t.Fatalf("read_file: %s", out)
		}
		_, statErr := os.Stat(filepath.Join(dir, "hook-ran"))
		lines := strings.Count(log.String(), "--trust")
		if (statErr == nil) != trust || (lines == 1) == trust {
			t.Errorf("trust %v: hook ran %v; log %q", trust, statErr == nil, log.String())
		}
		_ = cs.Close()
		if err := s.Close(); err != nil {
			t.Errorf("closing the server: %v", err)
		}
	}
}
