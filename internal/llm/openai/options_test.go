package openai

import (
	"context"
	"net/http"
	"testing"

	"github.com/gantry-dev/gantry/internal/llm"
	"github.com/gantry-dev/gantry/internal/llm/fakellm"
)

// Without the SDK's root client, the Responses service still takes the key, the
// base URL and the extra headers from the environment, as that client did.
func TestResponsesDefaultsFromEnvironment(t *testing.T) {
	srv := fakellm.New(fakellm.Turn{Parts: []fakellm.Part{fakellm.Text("via env")}})
	defer srv.Close()
	tr := &http.Transport{}
	defer tr.CloseIdleConnections()
	t.Setenv("OPENAI_BASE_URL", srv.URL()+"/v1")
	t.Setenv("OPENAI_API_KEY", "env-key")
	t.Setenv("OPENAI_PROJECT_ID", "proj-1")
	t.Setenv("OPENAI_CUSTOM_HEADERS", "X-Team: agents\nX-Empty:")
	p := NewResponses(Options{HTTPClient: &http.Client{Transport: tr}})
	resp, err := p.Stream(context.Background(), request("gpt-5", userText("hi")), func(llm.Delta) {})
	if err != nil || resp.Message.Text() != "via env" {
		t.Fatalf("%v %+v", err, resp)
	}
	r := srv.Requests()[0]
	if r.Path != "/v1/responses" || r.Header.Get("Authorization") != "Bearer env-key" ||
		r.Header.Get("OpenAI-Project") != "proj-1" || r.Header.Get("X-Team") != "agents" {
		t.Fatalf("request %s with headers %v", r.Path, r.Header)
	}
}

// Options given win over the environment; with neither, the production API.
func TestOptionsResolved(t *testing.T) {
	t.Setenv("OPENAI_BASE_URL", "")
	t.Setenv("OPENAI_API_KEY", "env-key")
	o := Options{}.resolved()
	if o.BaseURL != "https://api.openai.com/v1" || o.APIKey != "env-key" || o.HTTPClient == nil {
		t.Fatalf("defaults = %+v", o)
	}
	c := &http.Client{}
	o = Options{APIKey: "k", BaseURL: "http://localhost:11434/v1", HTTPClient: c}.resolved()
	if o.BaseURL != "http://localhost:11434/v1" || o.APIKey != "k" || o.HTTPClient != c {
		t.Fatalf("given = %+v", o)
	}
}

// The SDK would retry a 5xx twice by itself; gantry retries in llm.WithRetry only.
func TestResponsesSDKDoesNotRetry(t *testing.T) {
	p, srv := setup(t, NewResponses, fakellm.Turn{Status: 500}, fakellm.Turn{Parts: []fakellm.Part{fakellm.Text("never")}})
	_, err := p.Stream(context.Background(), request("gpt-5", userText("hi")), func(llm.Delta) {})
	if !llm.IsRetryable(err) || len(srv.Requests()) != 1 {
		t.Fatalf("after %d requests: %v", len(srv.Requests()), err)
	}
}
