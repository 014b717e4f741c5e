package web

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/gantry-dev/gantry/internal/tool"
)

func TestFetchToolMetadata(t *testing.T) {
	f := Fetch(Options{})
	if f.Name() != "web_fetch" || f.Level() != tool.LevelRead || f.Kind() != tool.KindFetch {
		t.Fatalf("got %s %v %v", f.Name(), f.Level(), f.Kind())
	}
	inv, msg := f.Decode(tool.Env{}, json.RawMessage(`{"url":" https://example.com/a "}`))
	if msg != "" || inv.Principal != "https://example.com/a" {
		t.Fatalf("principal %q, refusal %q", inv.Principal, msg)
	}
	spec := f.Spec()
	for _, arg := range []string{"url", "extract_mode", "max_chars", "headers", "authorization"} {
		if !strings.Contains(string(spec.Schema), `"`+arg+`"`) {
			t.Errorf("schema lacks %s: %s", arg, spec.Schema)
		}
	}
	if !strings.Contains(spec.Description, "Markdown") {
		t.Errorf("description: %q", spec.Description)
	}
}

func TestFetchDropsPageNoise(t *testing.T) {
	page := `<!doctype html><html><head><title>Release notes</title><style>body{color:red}</style>
<script>var tracking = 1;</script></head><body>
<header><a href="/">Home</a> <a href="/blog">Blog</a></header>
<nav><ul><li><a href="/docs">Docs menu</a></li></ul></nav>
<main><h1>Version 2</h1><p>It is <b>faster</b>, see <a href="notes/v2">the notes</a>.</p>
<img src="data:image/png;base64,iVBORw0KGgoAAAANSUhEUgAAAAE" alt="pixel">
<div hidden>secret hidden text</div>
<table><tr><th>Name</th><th>Speed</th></tr><tr><td>v1</td><td>1x</td></tr><tr><td>v2</td><td>3x</td></tr></table>
<pre><code class="language-go">fmt.Println("hi")</code></pre></main>
<footer>Copyright footer</footer></body></html>`
	srv := serve(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		fmt.Fprint(w, page)
	}))
	res := call(t, Fetch(Options{}), map[string]any{"url": srv.URL + "/releases/"})
	if res.IsError {
		t.Fatal(res.Text)
	}
	wantContains(t, res.Text, "Title: Release notes\n", "# Version 2", "**faster**",
		"[the notes]("+srv.URL+"/releases/notes/v2)", "| Name | Speed |", "| v2   | 3x    |",
		"```go\nfmt.Println(\"hi\")\n```")
	wantNotContains(t, res.Text, "tracking", "color:red", "Docs menu", "Blog", "Copyright", "secret", "base64")

	res = call(t, Fetch(Options{}), map[string]any{"url": srv.URL, "extract_mode": "text"})
	wantContains(t, res.Text, "Version 2\n\nIt is faster, see the notes.", "Name\tSpeed\nv1\t1x", `fmt.Println("hi")`)
	wantNotContains(t, res.Text, "**", "](", "<", "Docs menu")
}

func TestFetchPassesTextThrough(t *testing.T) {
	bodies := map[string]struct{ ctype, body string }{
		"/data.json": {"application/json", `{"name": "gantry", "tags": ["<b>not html</b>"]}`},
		"/notes.txt": {"text/plain; charset=utf-8", "line one\n  indented <two>\n"},
		"/feed.xml":  {"application/atom+xml", `<?xml version="1.0"?><feed><title>x</title></feed>`},
		"/rows.csv":  {"text/csv", "a,b\n1,2\n"},
		"/README.md": {"text/markdown", "# Title\n\n- item\n"},
	}
	srv := serve(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b := bodies[r.URL.Path]
		w.Header().Set("Content-Type", b.ctype)
		fmt.Fprint(w, b.body)
	}))
	for path, b := range bodies {
		res := call(t, Fetch(Options{}), map[string]any{"url": srv.URL + path})
		if res.IsError {
			t.Fatalf("%s: %s", path, res.Text)
		}
		_, content, _ := strings.Cut(res.Text, "\n\n")
		if content != strings.TrimSpace(b.body) {
			t.Errorf("%s: content %q, want %q", path, content, b.body)
		}
		wantContains(t, firstLine(res.Text), srv.URL+path+" · HTTP 200 OK · "+strings.Split(b.ctype, ";")[0]+" · ")
	}
}

func TestFetchSniffsUnlabelledHTML(t *testing.T) {
	srv := serve(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header()["Content-Type"] = nil // no Content-Type at all
		fmt.Fprint(w, "<!DOCTYPE html><html><body><h2>Sniffed</h2><p>content</p></body></html>")
	}))
	res := call(t, Fetch(Options{}), map[string]any{"url": srv.URL})
	wantContains(t, res.Text, "text/html (detected)", "## Sniffed")
}

func TestFetchDecodesLatin1(t *testing.T) {
	srv := serve(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html; charset=iso-8859-1")
		w.Write([]byte("<p>caf\xe9 cr\xe8me</p>"))
	}))
	res := call(t, Fetch(Options{}), map[string]any{"url": srv.URL})
	wantContains(t, res.Text, "café crème")
}

func TestFetchEmptyPage(t *testing.T) {
	srv := serve(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html")
	}))
	res := call(t, Fetch(Options{}), map[string]any{"url": srv.URL})
	if res.IsError {
		t.Fatal(res.Text)
	}
	wantContains(t, res.Text, "· 0 bytes\n", "(The page has no text content.)")
}

func TestFetchSendsHeadersAndAuthorization(t *testing.T) {
	srv := serve(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/plain")
		fmt.Fprintf(w, "ua=%s\nauth=%s\nx=%s\naccept=%s\n", r.UserAgent(), r.Header.Get("Authorization"), r.Header.Get("X-Trace"), r.Header.Get("Accept"))
	}))
	res := call(t, Fetch(Options{}), map[string]any{
		"url":           srv.URL,
		"headers":       map[string]string{"X-Trace": "abc", "Authorization": "overridden"},
		"authorization": "Bearer tok",
	})
	wantContains(t, res.Text, "ua="+DefaultUserAgent+"\n", "auth=Bearer tok\n", "x=abc\n", "accept=text/markdown")

	res = call(t, Fetch(Options{UserAgent: "probe/1"}), map[string]any{"url": srv.URL, "headers": map[string]string{"Accept": "text/plain"}})
	wantContains(t, res.Text, "ua=probe/1\n", "\naccept=text/plain", "auth=\n")
}

func TestFetchBoundsToMaxChars(t *testing.T) {
	var long strings.Builder
	for i := range 500 {
		fmt.Fprintf(&long, "line %03d of the file\n", i)
	}
	srv := serve(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/plain")
		fmt.Fprint(w, long.String())
	}))
	res := call(t, Fetch(Options{}), map[string]any{"url": srv.URL, "max_chars": 1000})
	if res.IsError {
		t.Fatal(res.Text)
	}
	_, content, _ := strings.Cut(res.Text, "\n\n")
	body, note, ok := strings.Cut(content, "\n\n[… cut:")
	if !ok {
		t.Fatalf("no cut note:\n%s", content)
	}
	if n := len(body); n > 1000 || n < 800 || !strings.HasSuffix(body, "of the file") {
		t.Errorf("kept %d characters ending %q", n, body[len(body)-20:])
	}
	wantContains(t, note, fmt.Sprintf("of %d characters", len(strings.TrimSpace(long.String()))), "larger max_chars (at most ")

	res = call(t, Fetch(Options{}), map[string]any{"url": srv.URL, "max_chars": 20000})
	wantNotContains(t, res.Text, "[… cut")
}

func TestFetchHTTPErrors(t *testing.T) {
	srv := serve(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/missing":
			w.Header().Set("Content-Type", "text/html")
			w.WriteHeader(http.StatusNotFound)
			fmt.Fprint(w, "<html><head><title>404</title></head><body><h1>Not here</h1><p>Gone <b>fishing</b>.</p></body></html>")
		case "/broken":
			w.Header().Set("Content-Type", "text/plain")
			w.WriteHeader(http.StatusInternalServerError)
			fmt.Fprint(w, "panic: database is down\ngoroutine 1 [running]:\n")
		case "/busy":
			w.Header().Set("Retry-After", "30")
			w.WriteHeader(http.StatusTooManyRequests)
		case "/secret":
			w.WriteHeader(http.StatusUnauthorized)
		}
	}))
	cases := map[string][]string{
		"/missing": {"web_fetch got HTTP 404 Not Found from " + srv.URL + "/missing: there is no page at that address.", "\nThe server said:\nNot here\nGone fishing."},
		"/broken":  {"HTTP 500 Internal Server Error", "the server failed; try again later.", "panic: database is down"},
		"/busy":    {"HTTP 429 Too Many Requests", "(Retry-After: 30)."},
		"/secret":  {"HTTP 401 Unauthorized", "needs credentials"},
	}
	for path, want := range cases {
		res := call(t, Fetch(Options{}), map[string]any{"url": srv.URL + path})
		if !res.IsError {
			t.Errorf("%s: not an error: %s", path, res.Text)
		}
		wantContains(t, res.Text, want...)
		wantNotContains(t, res.Text, "<h1>", "<b>")
	}
}

func TestFetchRedirects(t *testing.T) {
	srv := serve(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/old":
			http.Redirect(w, r, "/moved", http.StatusMovedPermanently)
		case "/moved":
			http.Redirect(w, r, "/new?x=1", http.StatusFound)
		case "/new":
			w.Header().Set("Content-Type", "text/plain")
			fmt.Fprint(w, "arrived")
		default:
			n := 0
			fmt.Sscanf(r.URL.Path, "/loop/%d", &n)
			http.Redirect(w, r, fmt.Sprintf("/loop/%d", n+1), http.StatusFound)
		}
	}))
	res := call(t, Fetch(Options{}), map[string]any{"url": srv.URL + "/old"})
	if res.IsError {
		t.Fatal(res.Text)
	}
	if !strings.HasPrefix(res.Text, srv.URL+"/new?x=1 · HTTP 200 OK") {
		t.Errorf("header: %q", firstLine(res.Text))
	}
	wantContains(t, res.Text, "\nRedirected 2 times: "+srv.URL+"/old → "+srv.URL+"/moved → "+srv.URL+"/new?x=1\n", "arrived")

	res = call(t, Fetch(Options{}), map[string]any{"url": srv.URL + "/loop/0"})
	if !res.IsError {
		t.Fatalf("a redirect loop was followed: %s", res.Text)
	}
	wantSentence(t, res.Text)
	wantContains(t, res.Text, "web_fetch stopped after 5 redirects (", srv.URL+"/loop/0 → ", "/loop/6)", "in a loop")

	res = call(t, Fetch(Options{MaxRedirects: 1}), map[string]any{"url": srv.URL + "/old"})
	wantContains(t, res.Text, "stopped after 1 redirects")
}

func TestFetchTimesOut(t *testing.T) {
	srv := serve(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		select {
		case <-r.Context().Done():
		case <-time.After(10 * time.Second):
		}
	}))
	start := time.Now()
	res := call(t, Fetch(Options{Timeout: 200 * time.Millisecond}), map[string]any{"url": srv.URL + "/slow"})
	if !res.IsError || time.Since(start) > 5*time.Second {
		t.Fatalf("after %v: %s", time.Since(start), res.Text)
	}
	wantSentence(t, res.Text)
	wantContains(t, res.Text, "web_fetch gave up on "+srv.URL+"/slow after 200ms", "(timeout)")
}

func TestFetchTimesOutInTheBody(t *testing.T) {
	srv := serve(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/plain")
		fmt.Fprint(w, "the beginning")
		w.(http.Flusher).Flush()
		<-r.Context().Done()
	}))
	res := call(t, Fetch(Options{Timeout: 300 * time.Millisecond}), map[string]any{"url": srv.URL})
	wantSentence(t, res.Text)
	wantContains(t, res.Text, "(timeout)")
}

func TestFetchHonoursCancellation(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	// The server cancels the call once the request has reached it.
	srv := serve(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		cancel()
		<-r.Context().Done()
	}))
	res := callCtx(t, ctx, Fetch(Options{}), map[string]any{"url": srv.URL})
	if !res.IsError || res.Text != "web_fetch was cancelled." {
		t.Fatalf("%+v", res)
	}
}

func TestFetchHidesURLPassword(t *testing.T) {
	srv := serve(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if u, p, ok := r.BasicAuth(); !ok || u != "me" || p != "s3cret" {
			w.WriteHeader(http.StatusUnauthorized)
			return
		}
		w.Header().Set("Content-Type", "text/html")
		fmt.Fprint(w, `<p>welcome, see <a href="/inbox">inbox</a></p>`)
	}))
	res := call(t, Fetch(Options{}), map[string]any{"url": strings.Replace(srv.URL, "http://", "http://me:s3cret@", 1)})
	wantContains(t, res.Text, "http://me:xxxxx@", "welcome", "[inbox]("+srv.URL+"/inbox)")
	wantNotContains(t, res.Text, "s3cret")
}
