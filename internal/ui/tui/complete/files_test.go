package complete

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"
)

// tree creates the files under a new git repository and returns its root; a name
// ending with "/" is an empty folder.
func tree(t *testing.T, names ...string) string {
	t.Helper()
	root := t.TempDir()
	for _, n := range append([]string{".git/HEAD"}, names...) {
		p := filepath.Join(root, filepath.FromSlash(n))
		if strings.HasSuffix(n, "/") {
			if err := os.MkdirAll(p, 0o755); err != nil {
				t.Fatal(err)
			}
			continue
		}
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		content := ""
		if filepath.Base(n) == ".gitignore" {
			content = "build/\n*.log\n"
		}
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return root
}

// filesT is Files with a budget a loaded test machine cannot exhaust.
func filesT(root, prefix string, limit int) []Candidate {
	c, _ := files(root, prefix, limit, maxVisit, time.Minute)
	return c
}

func texts(cs []Candidate) []string {
	out := make([]string, len(cs))
	for i, c := range cs {
		out[i] = c.Text
	}
	return out
}

var project = []string{
	".gitignore", ".env", "build/out.bin", "app.log", "empty/",
	"agent.md", "README.md", "go.mod",
	"internal/agent/tool.go", "internal/agent/agent.go", "internal/agent/agent_test.go",
	"internal/tools/grep.go", "cmd/gantry/main.go", "docs/tooling.md",
}

func TestFilesIgnored(t *testing.T) {
	root := tree(t, project...)
	got := texts(filesT(root, "", 0))
	for _, bad := range []string{"build/", "build/out.bin", "app.log", ".env", ".gitignore", ".git/", ".git/HEAD", "empty/"} {
		if slices.Contains(got, bad) {
			t.Errorf("%s is listed", bad)
		}
	}
	for _, good := range []string{"go.mod", "internal/", "internal/agent/", "internal/agent/tool.go"} {
		if !slices.Contains(got, good) {
			t.Errorf("%s is missing", good)
		}
	}
	if len(got) != 15 {
		t.Errorf("%d candidates: %q", len(got), got)
	}
}

func TestFilesRanking(t *testing.T) {
	root := tree(t, project...)
	cases := []struct {
		prefix string
		want   []string // the first candidates, in order
	}{
		// Exact prefixes of the path, shorter first, folders included.
		{"internal/ag", []string{"internal/agent/", "internal/agent/tool.go", "internal/agent/agent.go", "internal/agent/agent_test.go"}},
		{"internal/", []string{"internal/agent/", "internal/tools/", "internal/agent/tool.go", "internal/tools/grep.go"}},
		// Path prefix, then base name prefix, then fuzzy.
		{"ag", []string{"agent.md", "internal/agent/", "internal/agent/agent.go", "internal/agent/agent_test.go", "internal/agent/tool.go"}},
		{"main", []string{"cmd/gantry/main.go"}},
		// Fuzzy: a run after a slash beats scattered letters.
		{"agtool", []string{"internal/agent/tool.go"}},
		{"itg", []string{"internal/tools/grep.go"}},
		// Case is ignored.
		{"readme", []string{"README.md"}},
		{"INTERNAL/AGENT/T", []string{"internal/agent/tool.go"}},
		// Hidden files when the name typed starts with a dot; .git never.
		{".e", []string{".env"}},
		{".git/", nil},
		// A typed folder is listed even when ignored.
		{"build/", []string{"build/out.bin"}},
		{"nothing", nil},
	}
	for _, c := range cases {
		got := texts(filesT(root, c.prefix, 0))
		if len(got) < len(c.want) || !slices.Equal(got[:len(c.want)], c.want) {
			t.Errorf("Files(%q) = %q, want first %q", c.prefix, got, c.want)
		}
		if c.want == nil && len(got) != 0 {
			t.Errorf("Files(%q) = %q, want nothing", c.prefix, got)
		}
	}
}

func TestFilesKindsAndLimit(t *testing.T) {
	root := tree(t, project...)
	for _, c := range Files(root, "", 0) {
		dir := strings.HasSuffix(c.Text, "/")
		if (c.Kind == KindDir) != dir || (c.Kind != KindDir && c.Kind != KindFile) || c.Display != c.Text {
			t.Errorf("candidate %+v", c)
		}
	}
	if got := filesT(root, "", 3); len(got) != 3 {
		t.Errorf("limit 3 gave %d", len(got))
	}
	if got := texts(filesT(root, "internal/agent/", 1)); !slices.Equal(got, []string{"internal/agent/tool.go"}) {
		t.Errorf("limit 1: %q", got)
	}
	if got := Files(filepath.Join(root, "missing"), "", 0); got != nil {
		t.Errorf("missing root: %q", got)
	}
}

func TestFilesStayInsideRoot(t *testing.T) {
	outside := tree(t, "secret.txt")
	root := tree(t, "in/file.go")
	if err := os.Symlink(outside, filepath.Join(root, "link")); err != nil {
		t.Skip("no symbolic links:", err)
	}
	for _, prefix := range []string{"link/", "link/se", "../", "../" + filepath.Base(outside) + "/", "/", "in/../../"} {
		for _, c := range filesT(root, prefix, 0) {
			if strings.Contains(c.Text, "secret") || strings.HasPrefix(c.Text, "..") || strings.HasPrefix(c.Text, "/") {
				t.Errorf("Files(%q) offers %q", prefix, c.Text)
			}
		}
	}
}
