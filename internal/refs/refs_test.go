package refs

import (
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/gantry-dev/gantry/internal/tool"
)

func TestFileReference(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	p := write(t, dir, "src/add.go", "package add\n")
	res := expand(dir, "explain @file:src/add.go please")
	want := "explain @file:src/add.go please\n\n<file path=\"src/add.go\">\npackage add\n</file>"
	if res.Prompt != want || len(res.Notes) != 0 || !reflect.DeepEqual(res.Files, []string{p}) {
		t.Fatalf("got %q, notes %v, files %v", res.Prompt, res.Notes, res.Files)
	}
}

// An absolute path outside Cwd is labelled with its absolute path; a file without a
// final newline still closes its block on a line of its own.
func TestFileOutsideCwd(t *testing.T) {
	t.Parallel()
	p := write(t, t.TempDir(), "notes.txt", "no newline")
	res := expand(t.TempDir(), "see @file:"+p)
	if !strings.HasSuffix(res.Prompt, "\n\n<file path=\""+p+"\">\nno newline\n</file>") {
		t.Fatalf("got %q", res.Prompt)
	}
}

func TestFolderReference(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	write(t, dir, "pkg/b.go", "")
	write(t, dir, "pkg/a.go", "")
	write(t, dir, "pkg/sub/c.go", "")
	write(t, dir, "pkg/.hidden", "")
	write(t, dir, "empty/.keep", "")
	res := expand(dir, "look at @pkg and @file:empty/")
	want := "look at @pkg and @file:empty/\n\n" +
		"<folder path=\"pkg/\">\n.hidden\na.go\nb.go\nsub/\n</folder>\n\n" +
		"<folder path=\"empty/\">\n.keep\n</folder>"
	if res.Prompt != want || len(res.Files) != 2 || res.Files[0] != filepath.Join(dir, "pkg") {
		t.Fatalf("got %q, files %v", res.Prompt, res.Files)
	}
}

func TestMissingFile(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	prompt := "fix @file:nope.go, then @file:nope.go again"
	res := expand(dir, prompt)
	if res.Prompt != prompt || len(res.Files) != 0 {
		t.Fatalf("got %q, files %v", res.Prompt, res.Files)
	}
	if want := []string{"@file:nope.go: no such file or folder"}; !reflect.DeepEqual(res.Notes, want) {
		t.Fatalf("notes %q, want %q", res.Notes, want)
	}
}

func TestFileOverMaxOutput(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	big := "HEAD\n" + strings.Repeat("0123456789\n", 1000) + "TAIL\n"
	write(t, dir, "big.txt", big)
	res := Expand("@big.txt", Options{Cwd: dir, MaxOutput: 1000})
	want := "@big.txt\n\n<file path=\"big.txt\">\n" + tool.Bound(big, 1000) + "</file>"
	if res.Prompt != want || !strings.Contains(res.Prompt, "characters cut from the middle") {
		t.Fatalf("got %q", res.Prompt)
	}
	if !strings.Contains(res.Prompt, "HEAD") || !strings.Contains(res.Prompt, "TAIL") || len(res.Prompt) > 1400 {
		t.Fatalf("head or tail lost, or not bounded: %d bytes", len(res.Prompt))
	}
}

func TestBinaryFile(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	png := "\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR" + strings.Repeat("\x00", 100)
	write(t, dir, "logo.png", png)
	res := expand(dir, "@logo.png")
	want := "@logo.png\n\n<file path=\"logo.png\">\n(a binary file: image/png, 116 bytes; not inserted)\n</file>"
	if res.Prompt != want || len(res.Files) != 1 {
		t.Fatalf("got %q", res.Prompt)
	}
}

// A plain @word is a reference only when it names an existing file or folder, and then
// trailing punctuation is not part of the path.
func TestPlainPathVersusWord(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	write(t, dir, "main.go", "package main\n")
	prompt := "ask @alice about @main.go, and (@main.go) and @v1.2"
	res := expand(dir, prompt)
	want := prompt + "\n\n<file path=\"main.go\">\npackage main\n</file>"
	if res.Prompt != want || len(res.Notes) != 0 {
		t.Fatalf("got %q, notes %v", res.Prompt, res.Notes)
	}
}

func TestCodeSpansAndFencesIgnored(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	write(t, dir, "a.go", "A\n")
	for _, prompt := range []string{
		"run `cat @a.go` now",
		"run ``x `y` @file:a.go`` now",
		"```\n@a.go\n@file:missing\n```",
		"~~~~go\n@a.go\n~~~\nstill code\n~~~~",
		"```\nunclosed fence @a.go",
	} {
		if res := expand(dir, prompt); res.Prompt != prompt || len(res.Notes)+len(res.Files) != 0 {
			t.Errorf("%q: got %q, notes %v", prompt, res.Prompt, res.Notes)
		}
	}
	res := expand(dir, "```\ncode\n```\nafter @a.go, and an unmatched ` @a.go")
	if len(res.Files) != 1 {
		t.Errorf("a reference after a closed fence or an unmatched backtick was missed: %q", res.Prompt)
	}
}

// An e-mail address and an @ followed by white space are not references.
func TestEmailAndLoneAtIgnored(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	write(t, dir, "b.c", "secret\n")
	write(t, dir, "file:b.c", "")
	for _, prompt := range []string{"mail a@b.c now", "x@file:b.c", "meet @ noon", "trailing @", "@\tb.c", "@file: b.c", "@skill: x"} {
		if res := expand(dir, prompt); res.Prompt != prompt || len(res.Notes)+len(res.Files) != 0 {
			t.Errorf("%q: got %q, notes %v", prompt, res.Prompt, res.Notes)
		}
	}
}

func TestDuplicateInsertedOnce(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	p := write(t, dir, "a.txt", "A\n")
	res := expand(dir, "@a.txt @file:a.txt @./a.txt @"+p+" @file:\""+p+"\"")
	if strings.Count(res.Prompt, "<file ") != 1 || !reflect.DeepEqual(res.Files, []string{p}) {
		t.Fatalf("got %q, files %v", res.Prompt, res.Files)
	}
}

// @file:"…" takes a path with spaces.
func TestQuotedPath(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	write(t, dir, "my notes.md", "N\n")
	res := expand(dir, `read @file:"my notes.md" now`)
	if !strings.HasSuffix(res.Prompt, "<file path=\"my notes.md\">\nN\n</file>") {
		t.Fatalf("got %q, notes %v", res.Prompt, res.Notes)
	}
}

// ~/ is the home folder, for @file: and plain references. Not parallel: it sets HOME.
func TestHomeExpansion(t *testing.T) {
	home := t.TempDir()
	t.Setenv("HOME", home)
	p := write(t, home, "notes/todo.md", "buy milk\n")
	res := expand(t.TempDir(), "@~/notes/todo.md and @file:~/notes/todo.md and @~/missing and @file:~/missing")
	if !reflect.DeepEqual(res.Files, []string{p}) || !strings.Contains(res.Prompt, "buy milk") {
		t.Fatalf("got %q, files %v", res.Prompt, res.Files)
	}
	if want := []string{"@file:~/missing: no such file or folder"}; !reflect.DeepEqual(res.Notes, want) {
		t.Fatalf("notes %q", res.Notes)
	}
}

// A fifo or device is reported, never opened (opening a fifo would block).
func TestNotARegularFile(t *testing.T) {
	t.Parallel()
	res := expand(t.TempDir(), "@file:/dev/null")
	if want := []string{"@file:/dev/null: not a regular file or folder"}; !reflect.DeepEqual(res.Notes, want) || len(res.Files) != 0 {
		t.Fatalf("notes %q, files %v", res.Notes, res.Files)
	}
}

func TestMissingQuotedPath(t *testing.T) {
	t.Parallel()
	res := expand(t.TempDir(), `@file:"no such.md".`)
	if want := []string{`@file:"no such.md": no such file or folder`}; !reflect.DeepEqual(res.Notes, want) {
		t.Fatalf("notes %q", res.Notes)
	}
}
