package web

import (
	"net/http"
	"regexp"
	"strings"
	"testing"
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
	note := regexp.MustCompile(`\[… cut: showing the first (\d+) of (\d+) characters; to see more, call web_fetch again with a larger max_chars \(at most 200000\)`)
	m := note.FindStringSubmatch(content)
	if m == nil {
		t.Fatalf("no cut note at the end:\n%s", content[len(content)-500:])
	}
	body := content[:strings.LastIndex(content, "\n\n[… cut")]
	if n := len([]rune(body)); n > DefaultMaxChars || n < DefaultMaxChars*4/5 {
		t.Errorf("content has %d characters, want at most and near %d", n, DefaultMaxChars)
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
