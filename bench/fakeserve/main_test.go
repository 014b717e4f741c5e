package main

import (
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gantry-dev/gantry/internal/llm/fakellm"
)

// Every request's body is written to the dump folder in order, and the fake server
// still answers it.
func TestDumpWritesEveryBody(t *testing.T) {
	fake := fakellm.New(fakellm.Turn{Parts: []fakellm.Part{fakellm.Text("one")}}, fakellm.Turn{Parts: []fakellm.Part{fakellm.Text("two")}})
	defer fake.Close()
	dir := t.TempDir()
	srv := httptest.NewServer(&dumper{dir: dir, next: fake})
	defer srv.Close()
	for i, want := range []string{"one", "two"} {
		body := fmt.Sprintf(`{"model":"m","max_tokens":10,"stream":true,"messages":[{"role":"user","content":"request %d"}]}`, i+1)
		resp, err := http.Post(srv.URL+"/v1/messages", "application/json", strings.NewReader(body))
		if err != nil {
			t.Fatal(err)
		}
		answer, err := io.ReadAll(resp.Body)
		resp.Body.Close()
		if err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(string(answer), want) {
			t.Errorf("answer %d lacks %q: %.200s", i+1, want, answer)
		}
		got, err := os.ReadFile(filepath.Join(dir, fmt.Sprintf("%03d.json", i+1)))
		if err != nil {
			t.Fatal(err)
		}
		if string(got) != body {
			t.Errorf("dumped %s, sent %s", got, body)
		}
	}
}
