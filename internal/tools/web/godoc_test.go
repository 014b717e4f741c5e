package web

import (
	"context"
	"errors"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/gantry-dev/gantry/internal/tool"
)

// The Go toolchain ships real HTML pages (the spec, the memory model): web_fetch must
// turn them into Markdown with their headings, links and code intact.
func TestFetchGoSpecAsMarkdown(t *testing.T) {
	dir := goDoc(t, "go_spec.html")
	srv := serve(t, http.FileServer(http.Dir(dir)))
	res := call(t, Fetch(Options{}), map[string]any{"url": srv.URL + "/go_spec.html", "max_chars": MaxMaxChars})
	if res.IsError {
		t.Fatal(res.Text)
	}
	head := firstLine(res.Text)
	if !strings.HasPrefix(head, srv.URL+"/go_spec.html · HTTP 200 OK · text/html · ") {
		t.Errorf("header line = %q", head)
	}
	wantContains(t, res.Text,
		"## Introduction",
		"## Notation",
		"[variant](https://en.wikipedia.org/wiki/Wirth_syntax_notation)",
		"[go.dev]("+srv.URL+"/)", // a relative link made absolute
		"```",
		"Production  = production_name \"=\" [ Expression ] \".\" .",
	)
	wantNotContains(t, res.Text, "<p>", "<h2", "</a>", "<pre")
}

func TestFetchGoSpecIsCutAtMaxChars(t *testing.T) {
	dir := goDoc(t, "go_spec.html")
	srv := serve(t, http.FileServer(http.Dir(dir)))
	res := call(t, Fetch(Options{}), map[string]any{"url": srv.URL + "/go_spec.html"})
	if res.IsError {
		t.Fatal(res.Text)
	}
	_, content, _ := strings.Cut(res.Text, "\n\n")
	note := regexp.MustCompile(`\[… cut: showing the first (\d+) of (\d+) characters; to see more, fetch a more specific page`)
	m := note.FindStringSubmatch(content)
	if m == nil {
		t.Fatalf("no cut note at the end:\n%s", content[len(content)-500:])
	}
	body := content[:strings.LastIndex(content, "\n\n[… cut")]
	bound := tool.DefaultMaxOutput
	if n := len([]rune(body)); n > bound || n < bound*4/5 {
		t.Errorf("content has %d characters, want at most and near %d", n, bound)
	}
	if n := len([]rune(res.Text)); n > bound {
		t.Errorf("the result has %d characters, over the bound %d", n, bound)
	}
	// A max_chars past the bound is the bound: the result stays within it.
	res = call(t, Fetch(Options{MaxOutput: 5000}), map[string]any{"url": srv.URL + "/go_spec.html", "max_chars": MaxMaxChars})
	if n := len([]rune(res.Text)); n > 5000 || n < 4000 || tool.Bound(res.Text, 5000) != res.Text {
		t.Errorf("max_chars %d with a bound of 5000: %d characters", MaxMaxChars, n)
	}
}

// A page cut in a call the loop runs is saved whole, and the note gives the file and
// the read_file call for the lines after the ones shown.
func TestFetchSavesTheWholePage(t *testing.T) {
	dir := goDoc(t, "go_spec.html")
	srv := serve(t, http.FileServer(http.Dir(dir)))
	out := tool.NewOutputDir(filepath.Join(t.TempDir(), "outputs"), 0)
	ctx := tool.WithCallID(tool.WithOutputs(context.Background(), out), "f1")
	res := callCtx(t, ctx, Fetch(Options{MaxOutput: 8000}), map[string]any{"url": srv.URL + "/go_spec.html", "extract_mode": "text"})
	if n := len([]rune(res.Text)); res.IsError || n > 8000 {
		t.Fatalf("%d characters:\n%s", n, res.Text)
	}
	note := regexp.MustCompile(`\[… cut: showing the first (\d+) of (\d+) characters; the whole content is saved in (\S+): read on with read_file \{"path": "[^"]+", "start": (\d+), "end": (\d+)\}, or search it with grep …\]$`)
	m := note.FindStringSubmatch(res.Text)
	if m == nil {
		t.Fatalf("no note naming the saved page:\n%s", res.Text[len(res.Text)-600:])
	}
	saved, err := os.ReadFile(m[3])
	if err != nil || filepath.Base(m[3]) != "f1.txt" {
		t.Fatalf("the saved page %s: %v", m[3], err)
	}
	_, content, _ := strings.Cut(res.Text, "\n\n")
	body := content[:strings.LastIndex(content, "\n\n[… cut")]
	if !strings.HasPrefix(string(saved), body) || strconv.Itoa(len([]rune(string(saved)))) != m[2] {
		t.Errorf("the saved page is not the whole content whose head was shown (%d characters; the note says %s)", len([]rune(string(saved))), m[2])
	}
	start, _ := strconv.Atoi(m[4])
	lines := strings.Split(string(saved), "\n")
	// The read goes on from the line after the last one shown whole: the line the cut
	// fell in, or the next one when it fell at a line's end.
	shown, last := strings.Count(body, "\n")+1, body[strings.LastIndex(body, "\n")+1:]
	partial := start == shown && strings.HasPrefix(lines[start-1], last) && lines[start-1] != last
	whole := start == shown+1 && lines[start-2] == last
	if !partial && !whole {
		t.Errorf("read on from line %d; the head shows %d lines, the last %q; line %d is %q", start, shown, last, start, lines[start-1])
	}
}

func TestFetchGoMemAsText(t *testing.T) {
	dir := goDoc(t, "go_mem.html")
	srv := serve(t, http.FileServer(http.Dir(dir)))
	res := call(t, Fetch(Options{}), map[string]any{"url": srv.URL + "/go_mem.html", "extract_mode": "text"})
	if res.IsError {
		t.Fatal(res.Text)
	}
	wantContains(t, res.Text, "\nIntroduction\n", "\nMemory Model\n", "Synchronization")
	_, content, _ := strings.Cut(res.Text, "\n\n")
	if tag := regexp.MustCompile(`</?[a-zA-Z][a-zA-Z0-9]*[ >/]`).FindString(content); tag != "" {
		t.Errorf("text mode left the tag %q", tag)
	}
	wantNotContains(t, content, "## ", "](http", "```", "&lt;", "&amp;")
}

func TestFetchGoMemAsMarkdown(t *testing.T) {
	dir := goDoc(t, "go_mem.html")
	srv := serve(t, http.FileServer(http.Dir(dir)))
	res := call(t, Fetch(Options{}), map[string]any{"url": srv.URL + "/go_mem.html"})
	if res.IsError {
		t.Fatal(res.Text)
	}
	wantContains(t, res.Text, "## Introduction", "## Memory Model", "```")
}

// failingOutputs cannot write.
type failingOutputs struct{}

func (failingOutputs) Save(string, string) (string, error) {
	return "", errors.New("the disk is full")
}

// A page that cannot be saved says so and why, and how else to see more.
func TestFetchSaysWhenThePageWasNotSaved(t *testing.T) {
	dir := goDoc(t, "go_spec.html")
	srv := serve(t, http.FileServer(http.Dir(dir)))
	ctx := tool.WithOutputs(context.Background(), failingOutputs{})
	res := callCtx(t, ctx, Fetch(Options{MaxOutput: 3000}), map[string]any{"url": srv.URL + "/go_spec.html"})
	wantContains(t, res.Text, "the whole content could not be saved (the disk is full); to see more, fetch a more specific page")
	if n := len([]rune(res.Text)); n > 3000 {
		t.Errorf("%d characters", n)
	}
}
