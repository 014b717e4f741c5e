package config

import (
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"sync"
	"testing"

	"github.com/gantry-dev/gantry/internal/testenv"
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

func TestMemoryEveryNameInOrder(t *testing.T) {
	e := newEnv(t)
	sub := filepath.Join(e.root, "pkg")
	files := []string{
		filepath.Join(e.user, "AGENTS.md"),
		filepath.Join(e.user, "CLAUDE.md"),
		filepath.Join(e.root, "AGENTS.md"),
		filepath.Join(e.root, "CLAUDE.md"),
		filepath.Join(e.root, ".claude", "CLAUDE.md"),
		filepath.Join(e.root, "CLAUDE.local.md"),
		filepath.Join(sub, "CLAUDE.md"),
		filepath.Join(sub, "CLAUDE.local.md"),
	}
	// Written in another order than the one they are given in.
	for i := len(files) - 1; i >= 0; i-- {
		write(t, files[i], fmt.Sprintf("memory %d\n", i))
	}
	// The user folder is not a project: its .claude/ and CLAUDE.local.md are not read.
	write(t, filepath.Join(e.user, ".claude", "CLAUDE.md"), "not memory\n")
	write(t, filepath.Join(e.user, "CLAUDE.local.md"), "not memory\n")
	m, err := Memory(sub)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(m.Files, files) {
		t.Errorf("files %v\nwant %v", m.Files, files)
	}
	var parts []string
	for i, f := range files {
		parts = append(parts, fmt.Sprintf("Contents of %s:\n\nmemory %d", f, i))
	}
	assertOrder(t, m.Text, parts...)
	if strings.Contains(m.Text, "not memory") {
		t.Errorf("the user folder's .claude/CLAUDE.md or CLAUDE.local.md was read:\n%s", m.Text)
	}
}

func TestMemoryOverrideReplacesAgents(t *testing.T) {
	e := newEnv(t)
	sub := filepath.Join(e.root, "pkg")
	write(t, filepath.Join(e.user, "AGENTS.md"), "user agents\n")
	write(t, filepath.Join(e.user, "AGENTS.override.md"), "user override\n")
	write(t, filepath.Join(e.root, "AGENTS.md"), "root agents\n")
	write(t, filepath.Join(e.root, "AGENTS.override.md"), "root override\n")
	write(t, filepath.Join(e.root, "CLAUDE.md"), "root claude\n")
	// An empty override replaces nothing (Codex skips empty files).
	write(t, filepath.Join(sub, "AGENTS.md"), "pkg agents\n")
	write(t, filepath.Join(sub, "AGENTS.override.md"), "\n  \n")
	m, err := Memory(sub)
	if err != nil {
		t.Fatal(err)
	}
	want := []string{
		filepath.Join(e.user, "AGENTS.override.md"),
		filepath.Join(e.root, "AGENTS.override.md"),
		filepath.Join(e.root, "CLAUDE.md"), // CLAUDE.md is not replaced
		filepath.Join(sub, "AGENTS.md"),
	}
	if !reflect.DeepEqual(m.Files, want) {
		t.Errorf("files %v\nwant %v", m.Files, want)
	}
	assertOrder(t, m.Text, "user override", "root override", "root claude", "pkg agents")
	if strings.Contains(m.Text, "user agents") || strings.Contains(m.Text, "root agents") {
		t.Errorf("AGENTS.md read beside its override:\n%s", m.Text)
	}
}

func TestMemorySkipsEmptyFiles(t *testing.T) {
	e := newEnv(t)
	write(t, filepath.Join(e.root, "AGENTS.md"), "\n\n")
	write(t, filepath.Join(e.root, "CLAUDE.md"), "rules\n")
	m, err := Memory(e.root)
	if err != nil {
		t.Fatal(err)
	}
	if want := []string{filepath.Join(e.root, "CLAUDE.md")}; !reflect.DeepEqual(m.Files, want) {
		t.Errorf("files %v", m.Files)
	}
}

func TestNestedEachLevelOnceOnFirstTouch(t *testing.T) {
	e := newEnv(t)
	cwd := filepath.Join(e.root, "app")
	write(t, filepath.Join(cwd, "AGENTS.md"), "app agents\n")
	a := filepath.Join(cwd, "a")
	b := filepath.Join(a, "b")
	write(t, filepath.Join(a, "AGENTS.md"), "a agents @notes.md\n")
	write(t, filepath.Join(a, "notes.md"), "a notes\n")
	write(t, filepath.Join(a, "CLAUDE.local.md"), "a local\n")
	write(t, filepath.Join(b, "AGENTS.override.md"), "b override\n")
	write(t, filepath.Join(b, "AGENTS.md"), "b agents\n")
	write(t, filepath.Join(b, ".claude", "CLAUDE.md"), "b dot claude\n")
	write(t, filepath.Join(b, "main.go"), "package b\n")
	write(t, filepath.Join(e.root, "other", "AGENTS.md"), "outside the working folder\n")
	start, err := Memory(cwd)
	if err != nil {
		t.Fatal(err)
	}
	n := NewNested(cwd, start)

	// A file in the working folder itself, and one outside it: nothing new.
	for _, p := range [][]string{{filepath.Join(cwd, "x.go")}, {filepath.Join(e.root, "other", "y.go")}, {cwd}, {"rel/z.go"}} {
		if text, files := n.Touch(p); text != "" || files != nil {
			t.Errorf("Touch(%v) = %q, %v", p, text, files)
		}
	}
	text, files := n.Touch([]string{filepath.Join(b, "main.go")})
	want := []string{
		filepath.Join(a, "AGENTS.md"), filepath.Join(a, "notes.md"), filepath.Join(a, "CLAUDE.local.md"),
		filepath.Join(b, "AGENTS.override.md"), filepath.Join(b, ".claude", "CLAUDE.md"),
	}
	if !reflect.DeepEqual(files, want) {
		t.Errorf("files %v\nwant %v", files, want)
	}
	assertOrder(t, text,
		"Contents of "+want[0]+":\n\na agents",
		"Contents of "+want[1]+" (imported by "+want[0]+"):\n\na notes",
		"Contents of "+want[2]+":\n\na local",
		"Contents of "+want[3]+":\n\nb override",
		"Contents of "+want[4]+":\n\nb dot claude")
	if strings.Contains(text, "b agents") || strings.Contains(text, "app agents") {
		t.Errorf("text:\n%s", text)
	}
	// Once a session: touching the folders again, a folder (grep's path) included,
	// adds nothing; a file written since in a folder touched before is added then.
	if text, files := n.Touch([]string{filepath.Join(b, "other.go"), a, b}); text != "" || files != nil {
		t.Errorf("second touch: %q, %v", text, files)
	}
	write(t, filepath.Join(a, "CLAUDE.md"), "a claude, new\n")
	if text, files := n.Touch([]string{filepath.Join(a, "f.go")}); !reflect.DeepEqual(files, []string{filepath.Join(a, "CLAUDE.md")}) || !strings.Contains(text, "a claude, new") {
		t.Errorf("new file: %q, %v", text, files)
	}
	all := n.Text()
	assertOrder(t, all, "a agents", "a notes", "a local", "b override", "b dot claude", "a claude, new")
}

func TestNestedSkipsTheStartMemory(t *testing.T) {
	e := newEnv(t)
	cwd := filepath.Join(e.root, "app")
	shared := filepath.Join(e.root, "shared.md")
	write(t, filepath.Join(cwd, "AGENTS.md"), "@../shared.md\n")
	write(t, shared, "shared rules\n")
	write(t, filepath.Join(cwd, "sub", "AGENTS.md"), "sub rules, see @../../shared.md\n")
	start, err := Memory(cwd)
	if err != nil {
		t.Fatal(err)
	}
	n := NewNested(cwd, start)
	_, files := n.Touch([]string{filepath.Join(cwd, "sub", "f.go")})
	if want := []string{filepath.Join(cwd, "sub", "AGENTS.md")}; !reflect.DeepEqual(files, want) {
		t.Errorf("files %v: an import given at the start is given again", files)
	}
}

func TestNestedBoundedWithTheStartMemory(t *testing.T) {
	e := newEnv(t)
	write(t, filepath.Join(e.root, "AGENTS.md"), strings.Repeat("x", MaxMemory-100))
	write(t, filepath.Join(e.root, "sub", "AGENTS.md"), strings.Repeat("y", 500))
	write(t, filepath.Join(e.root, "sub2", "AGENTS.md"), "never\n")
	start, err := Memory(e.root)
	if err != nil {
		t.Fatal(err)
	}
	n := NewNested(e.root, start)
	text, _ := n.Touch([]string{filepath.Join(e.root, "sub", "f")})
	if len(start.Text)+len(text) > MaxMemory+200 || !strings.Contains(text, "[memory cut at 100 KB") {
		t.Errorf("start %d + nested %d bytes, ends %q", len(start.Text), len(text), text[max(len(text)-80, 0):])
	}
	if text, files := n.Touch([]string{filepath.Join(e.root, "sub2", "f")}); text != "" || files != nil {
		t.Errorf("added past the bound: %q", text)
	}
}

func TestNestedConcurrentTouches(t *testing.T) {
	e := newEnv(t)
	write(t, filepath.Join(e.root, "sub", "AGENTS.md"), "sub rules\n")
	n := NewNested(e.root, MemoryFiles{})
	var wg sync.WaitGroup
	texts := make([]string, 8)
	for i := range texts {
		wg.Go(func() { texts[i], _ = n.Touch([]string{filepath.Join(e.root, "sub", fmt.Sprint(i))}) })
	}
	testenv.Wait(t, &wg, testenv.Bound, "the concurrent touches")
	if got := strings.Count(strings.Join(texts, ""), "sub rules"); got != 1 {
		t.Errorf("given %d times", got)
	}
}

func TestNestedRestore(t *testing.T) {
	e := newEnv(t)
	sub := filepath.Join(e.root, "sub")
	write(t, filepath.Join(e.root, "AGENTS.md"), "root rules\n")
	write(t, filepath.Join(sub, "AGENTS.md"), "sub rules @notes.md\n")
	write(t, filepath.Join(sub, "notes.md"), "sub notes\n")
	write(t, filepath.Join(sub, ".claude", "CLAUDE.md"), "sub dot claude\n")
	write(t, filepath.Join(sub, "README.md"), "not memory\n")
	write(t, filepath.Join(e.root, "other", "AGENTS.md"), "other rules\n")
	start, err := Memory(e.root)
	if err != nil {
		t.Fatal(err)
	}
	given, _ := NewNested(e.root, start).Touch([]string{filepath.Join(sub, "f.go")})

	// A resumed session: the history holds what was given (and lines that only look
	// like labels).
	n := NewNested(e.root, start)
	n.Restore("read_file output\n\n<system-reminder>\n" + given + "\n</system-reminder>\n" +
		"Contents of " + filepath.Join(sub, "README.md") + ":\n" +
		"Contents of " + filepath.Join(e.root, "other", "AGENTS.md") + " (imported by x):\n" +
		"  Contents of " + filepath.Join(e.root, "other", "AGENTS.md") + ":\n")
	if n.Text() != given {
		t.Errorf("restored text:\n%s\nwant:\n%s", n.Text(), given)
	}
	if text, files := n.Touch([]string{filepath.Join(sub, "g.go")}); text != "" || files != nil {
		t.Errorf("given again after a resume: %v", files)
	}
	if _, files := n.Touch([]string{filepath.Join(e.root, "other", "g.go")}); len(files) != 1 {
		t.Errorf("a folder never touched: %v", files)
	}
}

// Claude Code's and Codex's user memory files are read after gantry's own user files
// and before the project's, where those agents read them (their folders moved by
// CLAUDE_CONFIG_DIR and CODEX_HOME too); Codex's override replaces its AGENTS.md.
func TestMemoryOtherAgentsUserFiles(t *testing.T) {
	e := newEnv(t)
	write(t, filepath.Join(e.user, "AGENTS.md"), "gantry user\n")
	write(t, filepath.Join(e.home, ".claude", "CLAUDE.md"), "claude user\n")
	write(t, filepath.Join(e.home, ".codex", "AGENTS.md"), "codex user\n")
	write(t, filepath.Join(e.root, "AGENTS.md"), "project\n")
	m, err := Memory(e.root)
	if err != nil {
		t.Fatal(err)
	}
	assertOrder(t, m.Text, "gantry user", "claude user", "codex user", "project")

	moved := filepath.Join(e.home, "elsewhere")
	t.Setenv("CLAUDE_CONFIG_DIR", filepath.Join(moved, "claude"))
	t.Setenv("CODEX_HOME", filepath.Join(moved, "codex"))
	write(t, filepath.Join(moved, "claude", "CLAUDE.md"), "moved claude\n")
	write(t, filepath.Join(moved, "codex", "AGENTS.md"), "moved codex\n")
	write(t, filepath.Join(moved, "codex", "AGENTS.override.md"), "codex override\n")
	m, err = Memory(e.root)
	if err != nil {
		t.Fatal(err)
	}
	assertOrder(t, m.Text, "gantry user", "moved claude", "codex override", "project")
	for _, gone := range []string{"claude user", "codex user", "moved codex"} {
		if strings.Contains(m.Text, gone) {
			t.Errorf("%q is read:\n%s", gone, m.Text)
		}
	}
}
