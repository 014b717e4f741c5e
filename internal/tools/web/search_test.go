package web

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strings"
	"sync"
	"testing"

	"github.com/gantry-dev/gantry/internal/tool"
)

// fakeExa is a local stand-in for Exa's API: it records each search and answers with
// the status and body the test sets.
type fakeExa struct {
	mu       sync.Mutex
	requests []map[string]any
	keys     []string
	status   int
	answer   string
}

func (f *fakeExa) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if r.Method != http.MethodPost || r.URL.Path != "/search" {
		http.Error(w, "not found", http.StatusNotFound)
		return
	}
	raw, _ := io.ReadAll(r.Body)
	var req map[string]any
	if err := json.Unmarshal(raw, &req); err != nil || r.Header.Get("Content-Type") != "application/json" {
		http.Error(w, `{"error":"bad request body"}`, http.StatusBadRequest)
		return
	}
	f.mu.Lock()
	f.requests = append(f.requests, req)
	f.keys = append(f.keys, r.Header.Get("x-api-key"))
	status, answer := f.status, f.answer
	f.mu.Unlock()
	w.Header().Set("Content-Type", "application/json")
	if status != 0 {
		w.WriteHeader(status)
	}
	fmt.Fprint(w, answer)
}

func newFakeExa(t *testing.T, status int, answer string) (*fakeExa, Options) {
	f := &fakeExa{status: status, answer: answer}
	srv := serve(t, f)
	return f, Options{ExaAPIKey: "test-key", ExaBaseURL: srv.URL + "/"}
}

const exaAnswer = `{
  "requestId": "b5947044c4b78efa9552a7c89b306d95",
  "resolvedSearchType": "neural",
  "results": [
    {
      "id": "https://go.dev/blog/go1.26",
      "title": "Go 1.26 is released",
      "url": "https://go.dev/blog/go1.26",
      "publishedDate": "2026-02-10T00:00:00.000Z",
      "author": "The Go Team",
      "score": 0.4600165784358978,
      "text": "Today the Go team is very happy to release Go 1.26.\n\nYou can get it from the download page. %s"
    },
    {
      "id": "https://example.com/notes",
      "title": "  Release   notes\n",
      "url": "https://example.com/notes",
      "highlights": ["The new garbage collector is on by default.", "Vet checks more."],
      "text": "ignored when highlights are given"
    },
    {"id": "x", "url": "https://example.com/bare", "title": ""}
  ],
  "costDollars": {"total": 0.005}
}`

func TestSearchAsksExaAndRendersHits(t *testing.T) {
	f, o := newFakeExa(t, 0, fmt.Sprintf(exaAnswer, strings.Repeat("More words about the release. ", 100)))
	res := call(t, Search(o), map[string]any{"query": "  go 1.26 release ", "count": 3, "type": "neural"})
	if res.IsError {
		t.Fatal(res.Text)
	}
	if len(f.requests) != 1 || f.keys[0] != "test-key" {
		t.Fatalf("requests %v keys %v", f.requests, f.keys)
	}
	req := f.requests[0]
	if req["query"] != "go 1.26 release" || req["numResults"] != 3.0 || req["type"] != "neural" {
		t.Errorf("request body %v", req)
	}
	text, _ := req["contents"].(map[string]any)["text"].(map[string]any)
	if mc, _ := text["maxCharacters"].(float64); mc <= 0 {
		t.Errorf("contents.text.maxCharacters missing: %v", req["contents"])
	}
	wantContains(t, res.Text,
		"Exa search for \"go 1.26 release\" (neural): 3 results.\n",
		"\n1. Go 1.26 is released\n   https://go.dev/blog/go1.26\n   published 2026-02-10 · by The Go Team\n   Today the Go team is very happy to release Go 1.26. You can get it from the download page. More words",
		"\n2. Release notes\n   https://example.com/notes\n   The new garbage collector is on by default. … Vet checks more.",
		"\n3. (untitled)\n   https://example.com/bare",
	)
	wantNotContains(t, res.Text, "ignored when highlights", "0.46", "requestId")
	for line := range strings.Lines(res.Text) {
		if n := len([]rune(line)); n > snippetChars+10 {
			t.Errorf("a line of %d characters: %.80q…", n, line)
		}
	}
	if res.Display.Note != "3 results" {
		t.Errorf("note %q", res.Display.Note)
	}
}

func TestSearchDefaults(t *testing.T) {
	f, o := newFakeExa(t, 0, `{"results": []}`)
	res := call(t, Search(o), map[string]any{"query": "nothing matches this"})
	if res.IsError {
		t.Fatal(res.Text)
	}
	if req := f.requests[0]; req["numResults"] != 5.0 || req["type"] != "auto" {
		t.Errorf("defaults not sent: %v", req)
	}
	wantContains(t, res.Text, `Exa found nothing for "nothing matches this" (auto search)`)
}

func TestSearchErrors(t *testing.T) {
	cases := []struct {
		status int
		answer string
		want   string
	}{
		{401, `{"requestId":"1","error":"Invalid API key","tag":"INVALID_API_KEY"}`, "web_search: Exa refused the API key (HTTP 401 Unauthorized: Invalid API key); check EXA_API_KEY."},
		{429, `{"error":{"message":"Rate limit exceeded"}}`, "web_search: Exa is limiting the rate of searches (HTTP 429 Too Many Requests: Rate limit exceeded); wait a little before searching again."},
		{502, `<html><body>Bad gateway</body></html>`, "web_search: Exa failed (HTTP 502 Bad Gateway); try again later."},
		{400, `{"message":"numResults must be at most 10"}`, "web_search: Exa rejected the search (HTTP 400 Bad Request: numResults must be at most 10); rephrase the query or change its type."},
		{200, `{"results": [ {"title": "cut`, "web_search could not read Exa's answer: it is not the JSON expected (unexpected end of JSON input)."},
		{200, `<html>maintenance</html>`, "web_search could not read Exa's answer: it is not the JSON expected (invalid character '<' looking for beginning of value)."},
	}
	for _, c := range cases {
		_, o := newFakeExa(t, c.status, c.answer)
		res := call(t, Search(o), map[string]any{"query": "q"})
		if !res.IsError || res.Text != c.want {
			t.Errorf("HTTP %d:\n got %s\nwant %s", c.status, res.Text, c.want)
		}
		wantSentence(t, res.Text)
	}
}

func TestSearchUnreachableExa(t *testing.T) {
	srv := serve(t, http.NotFoundHandler())
	srv.Close()
	res := call(t, Search(Options{ExaAPIKey: "k", ExaBaseURL: srv.URL}), map[string]any{"query": "q"})
	wantSentence(t, res.Text)
	wantContains(t, res.Text, "web_search could not connect to "+strings.TrimPrefix(srv.URL, "http://"))
}

func TestSearchRefusesBadArguments(t *testing.T) {
	s := Search(Options{ExaAPIKey: "k"})
	cases := map[string]string{
		`{}`:                          `web_search needs the argument "query", which is missing.`,
		`{"query":"  "}`:              `web_search needs something to look for in "query", which is empty.`,
		`{"query":"q","count":0}`:     `web_search: argument "count" must be at least 1, not 0.`,
		`{"query":"q","count":11}`:    `web_search: argument "count" must be at most 10, not 11.`,
		`{"query":"q","count":2.5}`:   `web_search: argument "count" must be a whole number, not 2.5.`,
		`{"query":"q","type":"deep"}`: `web_search: argument "type" must be one of "auto", "keyword", "neural", not "deep".`,
	}
	for raw, want := range cases {
		if got := refusal(t, s, raw); got != want {
			t.Errorf("%s:\n got %s\nwant %s", raw, got, want)
		}
	}
	inv, msg := s.Decode(tool.Env{}, json.RawMessage(`{"query":" rust async "}`))
	if msg != "" || inv.Principal != "rust async" {
		t.Errorf("principal %q, refusal %q", inv.Principal, msg)
	}
	if s.Name() != "web_search" || s.Level() != tool.LevelRead || s.Kind() != tool.KindFetch {
		t.Errorf("got %s %v %v", s.Name(), s.Level(), s.Kind())
	}
}

func TestToolsDeclareSearchOnlyWithAKey(t *testing.T) {
	names := func(ts []tool.Tool) string {
		var out []string
		for _, t := range ts {
			out = append(out, t.Name())
		}
		return strings.Join(out, ",")
	}
	if got := names(Tools(Options{})); got != "web_fetch" {
		t.Errorf("without a key: %s", got)
	}
	if got := names(Tools(Options{ExaAPIKey: "k"})); got != "web_fetch,web_search" {
		t.Errorf("with a key: %s", got)
	}
	env := map[string]string{"EXA_API_KEY": " k1 ", "EXA_BASE_URL": "http://127.0.0.1:9"}
	o := Options{}.WithEnv(func(k string) string { return env[k] })
	if o.ExaAPIKey != "k1" || o.exaBaseURL() != "http://127.0.0.1:9" {
		t.Errorf("WithEnv: %+v", o)
	}
	if o := (Options{ExaAPIKey: "mine"}).WithEnv(func(k string) string { return env[k] }); o.ExaAPIKey != "mine" {
		t.Errorf("WithEnv replaced a key already set: %+v", o)
	}
	if got := names(Tools(Options{}.WithEnv(func(string) string { return "" }))); got != "web_fetch" {
		t.Errorf("empty environment: %s", got)
	}
}
