package config

import (
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

// order returns the positions of the parts in s, failing the test when one is
// missing or they are out of order.
func assertOrder(t *testing.T, s string, parts ...string) {
	t.Helper()
	last := -1
	for _, p := range parts {
		i := strings.Index(s, p)
		if i < 0 {
			t.Fatalf("%q missing from:\n%s", p, s)
		}
		if i < last {
			t.Fatalf("%q out of order in:\n%s", p, s)
		}
		last = i
	}
}

func TestMemoryOrderUserRootSub(t *testing.T) {
	e := newEnv(t)
	sub := filepath.Join(e.root, "pkg", "sub")
	files := []string{
		filepath.Join(e.user, "AGENTS.md"),
		filepath.Join(e.root, "AGENTS.md"),
		filepath.Join(e.root, "CLAUDE.md"),
		filepath.Join(e.root, "pkg", "CLAUDE.md"),
		filepath.Join(sub, "AGENTS.md"),
	}
	for i, f := range files {
		write(t, f, "memory "+string(rune('A'+i))+"\n")
	}
	// Not on the way from the root to cwd: not read.
	write(t, filepath.Join(e.root, "other", "AGENTS.md"), "other\n")
	m, err := Memory(sub)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(m.Files, files) {
		t.Errorf("files %v\nwant %v", m.Files, files)
	}
	assertOrder(t, m.Text,
		"Contents of "+files[0]+":\n\nmemory A",
		"Contents of "+files[1]+":\n\nmemory B",
		"Contents of "+files[2]+":\n\nmemory C",
		"Contents of "+files[3]+":\n\nmemory D",
		"Contents of "+files[4]+":\n\nmemory E")
	if strings.Contains(m.Text, "other") || m.Truncated {
		t.Errorf("text:\n%s", m.Text)
	}
}

func TestMemoryClaudeOnly(t *testing.T) {
	e := newEnv(t)
	write(t, filepath.Join(e.root, "CLAUDE.md"), "claude rules\n")
	m, err := Memory(e.root)
	if err != nil {
		t.Fatal(err)
	}
	if len(m.Files) != 1 || !strings.Contains(m.Text, "claude rules") {
		t.Errorf("%+v", m)
	}
}

func TestMemoryNone(t *testing.T) {
	e := newEnv(t)
	m, err := Memory(e.root)
	if err != nil {
		t.Fatal(err)
	}
	if m.Text != "" || len(m.Files) != 0 {
		t.Errorf("%+v", m)
	}
}

func TestMemoryImports(t *testing.T) {
	e := newEnv(t)
	agents := filepath.Join(e.root, "AGENTS.md")
	write(t, agents, strings.Join([]string{
		"Read @docs/style.md for style.",
		"Mail me at someone@example.com, not an import.",
		"Also see @missing.md which is not there.",
		"Home: @~/notes.md.",
		"`@docs/inline.md` is inline code.",
		"```",
		"@docs/fenced.md",
		"```",
		"~~~md",
		"@docs/tilde.md",
		"~~~",
	}, "\n"))
	write(t, filepath.Join(e.root, "docs", "style.md"), "style: tabs\nsee @deeper/rules.md\n")
	write(t, filepath.Join(e.root, "docs", "deeper", "rules.md"), "rule one\n")
	write(t, filepath.Join(e.home, "notes.md"), "home notes\n")
	for _, f := range []string{"inline.md", "fenced.md", "tilde.md"} {
		write(t, filepath.Join(e.root, "docs", f), "MUST NOT APPEAR "+f+"\n")
	}
	m, err := Memory(e.root)
	if err != nil {
		t.Fatal(err)
	}
	style := filepath.Join(e.root, "docs", "style.md")
	rules := filepath.Join(e.root, "docs", "deeper", "rules.md")
	notes := filepath.Join(e.home, "notes.md")
	if want := []string{agents, style, rules, notes}; !reflect.DeepEqual(m.Files, want) {
		t.Errorf("files %v\nwant %v", m.Files, want)
	}
	assertOrder(t, m.Text,
		"Contents of "+agents+":",
		"Also see @missing.md which is not there.", // a missing import stays as text
		"Contents of "+style+" (imported by "+agents+"):\n\nstyle: tabs",
		"Contents of "+rules+" (imported by "+style+"):\n\nrule one",
		"Contents of "+notes+" (imported by "+agents+"):\n\nhome notes")
	if strings.Contains(m.Text, "MUST NOT APPEAR") {
		t.Errorf("an import in code was followed:\n%s", m.Text)
	}
}

func TestMemoryImportCycleAndRepeats(t *testing.T) {
	e := newEnv(t)
	write(t, filepath.Join(e.root, "AGENTS.md"), "@a.md @b.md\n")
	write(t, filepath.Join(e.root, "a.md"), "A imports @b.md\n")
	write(t, filepath.Join(e.root, "b.md"), "B imports @a.md and @AGENTS.md\n")
	m, err := Memory(e.root)
	if err != nil {
		t.Fatal(err)
	}
	if len(m.Files) != 3 {
		t.Errorf("files %v", m.Files)
	}
	for _, f := range []string{"a.md", "b.md", "AGENTS.md"} {
		if n := strings.Count(m.Text, "Contents of "+filepath.Join(e.root, f)); n != 1 {
			t.Errorf("%s included %d times", f, n)
		}
	}
}

func TestMemoryImportDepthLimit(t *testing.T) {
	e := newEnv(t)
	write(t, filepath.Join(e.root, "AGENTS.md"), "@d1.md\n")
	for i := 1; i <= 7; i++ {
		write(t, filepath.Join(e.root, "d"+string(rune('0'+i))+".md"), "level "+string(rune('0'+i))+" @d"+string(rune('0'+i+1))+".md\n")
	}
	m, err := Memory(e.root)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(m.Text, "level 5") || strings.Contains(m.Text, "level 6") {
		t.Errorf("imports not followed to exactly depth 5:\n%s", m.Text)
	}
}

func TestMemoryBounded(t *testing.T) {
	e := newEnv(t)
	write(t, filepath.Join(e.user, "AGENTS.md"), strings.Repeat("é", MaxMemory)) // 2 bytes a rune
	write(t, filepath.Join(e.root, "AGENTS.md"), "project\n")
	m, err := Memory(e.root)
	if err != nil {
		t.Fatal(err)
	}
	if !m.Truncated || len(m.Text) > MaxMemory+200 || !strings.Contains(m.Text, "[memory cut at 100 KB") {
		t.Errorf("truncated %v, %d bytes, ends %q", m.Truncated, len(m.Text), m.Text[len(m.Text)-80:])
	}
	if !strings.HasPrefix(m.Text, "Contents of") || strings.Contains(m.Text, "project") || len(m.Files) != 1 {
		t.Errorf("files %v", m.Files)
	}
	if !utf8Valid(m.Text) {
		t.Error("cut in the middle of a character")
	}
}

func utf8Valid(s string) bool { return strings.ToValidUTF8(s, "\uFFFD") == s }

func TestMemoryUnreadableFileIsAnError(t *testing.T) {
	e := newEnv(t)
	p := filepath.Join(e.root, "AGENTS.md")
	// A symlink to itself cannot be read, even by root; unlike a missing file, that
	// is reported.
	if err := os.Symlink(p, p); err != nil {
		t.Fatal(err)
	}
	if _, err := Memory(e.root); err == nil || !strings.Contains(err.Error(), p) {
		t.Errorf("got %v", err)
	}
}

func TestImportsParsing(t *testing.T) {
	dir := t.TempDir()
	write(t, filepath.Join(dir, "x.md"), "")
	got := imports(strings.Join([]string{
		"@x.md, and @x.md.",          // punctuation after an existing file is dropped
		"a@b.md no",                  // not after a space
		"`` @in `code` span ``",      // inside a double-backtick span
		"unmatched ` then @after.md", // a lone backtick opens nothing
		"    ```",                    // indented four: not a fence
		"@/abs/path.md",
		"```go",
		"@skipped.md",
		"````", // a longer closing fence closes it too
		"@last.md",
	}, "\n"), dir)
	want := []string{
		filepath.Join(dir, "x.md"), filepath.Join(dir, "x.md"),
		filepath.Join(dir, "after.md"), "/abs/path.md", filepath.Join(dir, "last.md"),
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("got %v\nwant %v", got, want)
	}
}
