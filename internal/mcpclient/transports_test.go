//lint:file-ignore SA1019 the servers here ask for the client's roots, which is deprecated, not gone

package mcpclient

import (
	"bytes"
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// rootsServer is an MCP server with a shout tool and a roots tool (which asks the
// client for its roots and tells their URIs, one a line).
func rootsServer() *mcp.Server {
	srv := mcp.NewServer(&mcp.Implementation{Name: "rooted", Version: "1"}, nil)
	mcp.AddTool(srv, &mcp.Tool{Name: "shout", Description: "Shouts its text."},
		func(_ context.Context, _ *mcp.CallToolRequest, in shoutIn) (*mcp.CallToolResult, any, error) {
			return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: strings.ToUpper(in.Text)}}}, nil, nil
		})
	mcp.AddTool(srv, &mcp.Tool{Name: "roots", Description: "Tells the client's roots."},
		func(ctx context.Context, req *mcp.CallToolRequest, _ struct{}) (*mcp.CallToolResult, any, error) {
			res, err := req.Session.ListRoots(ctx, nil)
			if err != nil {
				return nil, nil, err
			}
			var uris []string
			for _, r := range res.Roots {
				uris = append(uris, r.URI)
			}
			return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: strings.Join(uris, "\n")}}}, nil, nil
		})
	return srv
}

// serve serves handler on 127.0.0.1 until the test ends, noting the X-Token header of
// the last request.
func serve(t *testing.T, handler http.Handler) (string, *atomic.Value) {
	t.Helper()
	var token atomic.Value
	token.Store("")
	ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if tk := r.Header.Get("X-Token"); tk != "" {
			token.Store(tk)
		}
		handler.ServeHTTP(w, r)
	}))
	t.Cleanup(ts.Close)
	return ts.URL, &token
}

// The legacy HTTP+SSE transport (type sse): tools listed and called, headers sent.
func TestSSEServer(t *testing.T) {
	srv := rootsServer()
	url, token := serve(t, mcp.NewSSEHandler(func(*http.Request) *mcp.Server { return srv }, nil))
	set := connect(t, Options{}, Server{Name: "old", Type: TypeSSE, URL: url, Headers: map[string]string{"X-Token": "sse-secret"}})
	if f := set.Failures(); len(f) != 0 {
		t.Fatalf("failures: %q", f)
	}
	if r := call(context.Background(), t, set, "mcp__old__shout", `{"text":"over sse"}`); r.IsError || r.Text != "OVER SSE" {
		t.Errorf("shout: %+v", r)
	}
	if got := token.Load(); got != "sse-secret" {
		t.Errorf("X-Token %q", got)
	}
}

// A streamable-HTTP endpoint is no SSE endpoint: a server given the wrong type fails
// with a sentence, and is not fatal.
func TestSSEServerThatIsNot(t *testing.T) {
	srv := rootsServer()
	url, _ := serve(t, mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return srv }, nil))
	set := connect(t, Options{}, Server{Name: "wrong", Type: TypeSSE, URL: url})
	if f := set.Failures(); len(f) != 1 || !strings.HasPrefix(f[0], `MCP server "wrong" could not be reached: `) {
		t.Errorf("failures: %q", f)
	}
}

// With roots, the client announces the capability and answers roots/list with them,
// over every transport and both ways of asking (a roots/list request of the earlier
// protocols, the input requests of 2026-07-28's); without, it has none to tell.
func TestRootsAreAnswered(t *testing.T) {
	project := filepath.Join(t.TempDir(), "my project")
	want := "file://" + filepath.ToSlash(strings.ReplaceAll(project, " ", "%20"))
	srv := rootsServer()
	streamable := mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return srv }, nil)
	var initialize atomic.Value // the body of the last initialize request
	initialize.Store("")
	httpURL, _ := serve(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		if strings.Contains(string(body), `"method":"initialize"`) {
			initialize.Store(string(body))
		}
		r.Body = io.NopCloser(bytes.NewReader(body))
		streamable.ServeHTTP(w, r)
	}))
	sseURL, _ := serve(t, mcp.NewSSEHandler(func(*http.Request) *mcp.Server { return srv }, nil))
	servers := []Server{
		echoServer("stdio"),
		{Name: "http", URL: httpURL},
		{Name: "sse", Type: TypeSSE, URL: sseURL},
	}
	set := connect(t, Options{Roots: []string{project}}, servers...)
	if f := set.Failures(); len(f) != 0 {
		t.Fatalf("failures: %q", f)
	}
	for _, s := range servers {
		if r := call(context.Background(), t, set, "mcp__"+s.Name+"__roots", `{}`); r.IsError || r.Text != want {
			t.Errorf("%s: roots %+v, want %q", s.Name, r, want)
		}
	}

	if got := initialize.Load().(string); !strings.Contains(got, `"capabilities":{"roots":{}}`) {
		t.Errorf("initialize without the roots capability: %s", got)
	}

	bare := connect(t, Options{}, echoServer("bare"), Server{Name: "barehttp", URL: httpURL})
	if got := initialize.Load().(string); !strings.Contains(got, `"capabilities":{}`) {
		t.Errorf("a client without roots announced: %s", got)
	}
	if r := call(context.Background(), t, bare, "mcp__bare__roots", `{}`); r.IsError || r.Text != "" {
		t.Errorf("a client without roots told of some: %+v", r)
	}
}

// A stdio server's cwd is relative to Options.Dir; one that is no folder is a failure
// naming it.
func TestStdioCwd(t *testing.T) {
	dir := t.TempDir()
	if err := os.Mkdir(filepath.Join(dir, "sub"), 0o755); err != nil {
		t.Fatal(err)
	}
	s := echoServer("here", "-page", "0")
	s.Cwd = "sub"
	set := connect(t, Options{Dir: dir}, s)
	r := call(context.Background(), t, set, "mcp__here__whereami", `{}`)
	if wd, args, _ := strings.Cut(r.Text, "\n"); r.IsError || wd != filepath.Join(dir, "sub") || args != "-page 0" {
		t.Errorf("whereami: %+v", r)
	}

	s.Name, s.Cwd = "nowhere", "missing"
	set = connect(t, Options{Dir: dir}, s)
	if f := set.Failures(); len(f) != 1 || f[0] != `MCP server "nowhere" was not started: its cwd `+filepath.Join(dir, "missing")+` is not a folder.` {
		t.Errorf("failures: %q", f)
	}
}

// A type gantry does not connect to, and a type without what it needs, are failures
// naming the server.
func TestServerTypes(t *testing.T) {
	set := connect(t, Options{},
		Server{Name: "ws", Type: "ws", URL: "ws://127.0.0.1:1"},
		Server{Name: "sse", Type: TypeSSE, Command: "x"},
		Server{Name: "stdio", Type: TypeStdio, URL: "http://127.0.0.1:1"},
	)
	want := []string{
		`MCP server "ws" has type "ws"; gantry connects to stdio, http and sse servers, so it was not started.`,
		`MCP server "sse" is an sse server without a url, so it was not started.`,
		`MCP server "stdio" is a stdio server without a command, so it was not started.`,
	}
	if f := set.Failures(); strings.Join(f, "\n") != strings.Join(want, "\n") {
		t.Errorf("failures:\n%s\nwant:\n%s", strings.Join(f, "\n"), strings.Join(want, "\n"))
	}
}
