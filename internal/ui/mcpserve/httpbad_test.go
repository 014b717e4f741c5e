package mcpserve

import (
	"context"
	"io"
	"net/http"
	"strings"
	"testing"

	"github.com/gantry-dev/gantry/internal/app"
)

// Over HTTP the SDK reads each body itself: a malformed one is answered 400 with its
// reason, and the session goes on.
func TestMalformedHTTPBody(t *testing.T) {
	s := newServer(t, app.Options{Cwd: project(t)})
	url := "http://" + serveHTTP(t, s, HTTPOptions{Token: "t"}) + Path
	cs := httpClient(t, url, "t")
	tr := &http.Transport{}
	defer tr.CloseIdleConnections()
	client := &http.Client{Transport: tr}
	for _, body := range []string{
		`{"jsonrpc":"2.0","id":1,`,
		`{"jsonrpc":"2.0","id":true,"method":"tools/list"}`,
		`[]`,
		`{"jsonrpc":"1.0","id":2,"method":"tools/list"}`,
	} {
		req, err := http.NewRequest(http.MethodPost, url, strings.NewReader(body))
		if err != nil {
			t.Fatal(err)
		}
		req.Header.Set("Authorization", "Bearer t")
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Accept", "application/json, text/event-stream")
		req.Header.Set("Mcp-Session-Id", cs.ID())
		req.Header.Set("Mcp-Protocol-Version", cs.InitializeResult().ProtocolVersion)
		resp, err := client.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		reason, err := io.ReadAll(resp.Body)
		_ = resp.Body.Close()
		if err != nil || resp.StatusCode != http.StatusBadRequest || !strings.Contains(string(reason), "malformed payload") {
			t.Errorf("%s: %d %q (%v)", body, resp.StatusCode, reason, err)
		}
		if _, err := cs.ListTools(context.Background(), nil); err != nil {
			t.Fatalf("tools/list after %s: %v", body, err)
		}
	}
}
