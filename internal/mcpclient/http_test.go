package mcpclient

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

type shoutIn struct {
	Text string `json:"text"`
}

// newHTTPServer serves an MCP server with a shout tool and a wait tool over streamable
// HTTP on 127.0.0.1, noting the X-Token header of the last request. Waits end when
// cancelled or when release is closed (a cancel notification may be lost to a Close
// that follows at once, and the server's session then waits for its calls).
func newHTTPServer(release <-chan struct{}) (*httptest.Server, *atomic.Value) {
	srv := mcp.NewServer(&mcp.Implementation{Name: "shouter", Version: "1"}, nil)
	mcp.AddTool(srv, &mcp.Tool{Name: "shout", Description: "Shouts its text."},
		func(_ context.Context, _ *mcp.CallToolRequest, in shoutIn) (*mcp.CallToolResult, any, error) {
			return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: strings.ToUpper(in.Text)}}}, nil, nil
		})
	mcp.AddTool(srv, &mcp.Tool{Name: "wait", Description: "Waits until cancelled."},
		func(ctx context.Context, _ *mcp.CallToolRequest, _ struct{}) (*mcp.CallToolResult, any, error) {
			select {
			case <-ctx.Done():
				return nil, nil, ctx.Err()
			case <-release:
				return nil, nil, errors.New("released")
			}
		})
	handler := mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return srv }, nil)
	var token atomic.Value
	token.Store("")
	ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		token.Store(r.Header.Get("X-Token"))
		handler.ServeHTTP(w, r)
	}))
	return ts, &token
}

func TestHTTPServer(t *testing.T) {
	release := make(chan struct{})
	ts, token := newHTTPServer(release)
	defer ts.Close()
	set := Connect(context.Background(), []Server{{Name: "web", URL: ts.URL, Headers: map[string]string{"X-Token": "secret"}}},
		Options{})
	defer set.Close(context.Background())
	defer close(release)
	if f := set.Failures(); len(f) != 0 {
		t.Fatalf("failures: %q", f)
	}
	if r := call(context.Background(), t, set, "mcp__web__shout", `{"text":"hi"}`); r.IsError || r.Text != "HI" {
		t.Errorf("shout: %+v", r)
	}
	if got := token.Load(); got != "secret" {
		t.Errorf("X-Token %q", got)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 300*time.Millisecond)
	defer cancel()
	if r := call(ctx, t, set, "mcp__web__wait", `{}`); !r.IsError || r.Text != "mcp__web__wait failed: cancelled before the server answered." {
		t.Errorf("wait: %+v", r)
	}
}

func TestHTTPServerThatIsNotThere(t *testing.T) {
	ts := httptest.NewServer(http.NotFoundHandler())
	url := ts.URL
	ts.Close() // nothing listens there now
	set := Connect(context.Background(), []Server{{Name: "gone", URL: url}}, Options{StartTimeout: 5 * time.Second})
	defer set.Close(context.Background())
	if f := set.Failures(); len(f) != 1 || !strings.HasPrefix(f[0], `MCP server "gone" could not be reached: `) {
		t.Errorf("failures: %q", f)
	}
}
