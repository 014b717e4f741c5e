package mcpserve

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"go.uber.org/goleak"

	"github.com/gantry-dev/gantry/internal/app"
	"github.com/gantry-dev/gantry/internal/procgroup/proctest"
	"github.com/gantry-dev/gantry/internal/testenv"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

// project is a folder with a file, and gantry's folders of its own for the test.
func project(t testing.TB) string {
	t.Helper()
	home := t.TempDir()
	t.Setenv("GANTRY_CONFIG_DIR", filepath.Join(home, "config"))
	t.Setenv("GANTRY_DATA_DIR", filepath.Join(home, "data"))
	t.Setenv("HOME", home)
	t.Setenv("ANTHROPIC_API_KEY", "")
	t.Setenv("OPENAI_API_KEY", "")
	dir := filepath.Join(home, "proj")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	write(t, dir, "notes.txt", "first line\nsecond line\n")
	return dir
}

func write(t testing.TB, dir, name, text string) {
	t.Helper()
	p := filepath.Join(dir, name)
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
}

func newServer(t *testing.T, o app.Options) *Server {
	t.Helper()
	s, err := New(Options{App: o, Version: "test"})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := s.Close(); err != nil {
			t.Errorf("closing the server: %v", err)
		}
	})
	return s
}

// connect runs s on an in-memory pipe (as stdio would) and connects a client to it.
func connect(t *testing.T, s *Server, co *mcp.ClientOptions) *mcp.ClientSession {
	t.Helper()
	return connectAt(t, s, co, "")
}

// connectAt is connect with the protocol version the client asks for ("": the SDK's
// latest).
func connectAt(t *testing.T, s *Server, co *mcp.ClientOptions, version string) *mcp.ClientSession {
	t.Helper()
	ct, st := mcp.NewInMemoryTransports()
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- s.Run(ctx, st) }()
	c := mcp.NewClient(&mcp.Implementation{Name: "test", Version: "1"}, co)
	cs, err := c.Connect(context.Background(), ct, &mcp.ClientSessionOptions{ProtocolVersion: version})
	if err != nil {
		cancel()
		t.Fatal(err)
	}
	t.Cleanup(func() {
		_ = cs.Close()
		cancel()
		if err := testenv.Recv(t, done, testenv.Bound, "the server's run to end once cancelled"); err != nil {
			t.Errorf("the server's run: %v", err)
		}
	})
	return cs
}

func call(t *testing.T, cs *mcp.ClientSession, name string, args any) (string, *mcp.CallToolResult) {
	t.Helper()
	r, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: name, Arguments: args})
	if err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	var b strings.Builder
	for _, c := range r.Content {
		if tc, ok := c.(*mcp.TextContent); ok {
			b.WriteString(tc.Text)
		}
	}
	return b.String(), r
}

func TestListAndCall(t *testing.T) {
	dir := project(t)
	s := newServer(t, app.Options{Cwd: dir})
	cs := connect(t, s, nil)
	list, err := cs.ListTools(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	byName := map[string]*mcp.Tool{}
	for _, tl := range list.Tools {
		byName[tl.Name] = tl
	}
	for _, want := range []string{"read_file", "grep", "glob", "bash", "edit_file", "apply_patch"} {
		if byName[want] == nil {
			t.Errorf("%s is not listed: %v", want, names(list.Tools))
		}
	}
	// The tools of a conversation are not served.
	for _, not := range []string{"agent", "todo_write", "ask_user", "enter_plan_mode", "exit_plan_mode", "compact", "register_hook", "task"} {
		if byName[not] != nil {
			t.Errorf("%s is served", not)
		}
	}
	rf := byName["read_file"]
	if rf.Title != "Read a file" || !rf.Annotations.ReadOnlyHint || rf.Annotations.DestructiveHint != nil {
		t.Errorf("read_file: title %q, annotations %+v", rf.Title, rf.Annotations)
	}
	if b := byName["bash"]; b.Annotations.ReadOnlyHint || b.Annotations.DestructiveHint == nil || !*b.Annotations.DestructiveHint {
		t.Errorf("bash annotations %+v", b.Annotations)
	}
	schema, _ := json.Marshal(rf.InputSchema)
	if !strings.Contains(string(schema), `"path"`) {
		t.Errorf("read_file's schema: %s", schema)
	}

	text, r := call(t, cs, "read_file", map[string]any{"path": "notes.txt"})
	if r.IsError || !strings.Contains(text, "second line") {
		t.Errorf("read_file: %v %q", r.IsError, text)
	}
	text, r = call(t, cs, "grep", map[string]any{"pattern": "second"})
	if r.IsError || !strings.Contains(text, "notes.txt") {
		t.Errorf("grep: %v %q", r.IsError, text)
	}
	// Bad input is one sentence, as for the model.
	text, r = call(t, cs, "read_file", map[string]any{"path": 3})
	if !r.IsError || !strings.Contains(text, "path") {
		t.Errorf("a bad argument: %v %q", r.IsError, text)
	}
	text, r = call(t, cs, "read_file", map[string]any{"path": "missing.txt"})
	if !r.IsError || !strings.Contains(text, "missing.txt") {
		t.Errorf("a missing file: %v %q", r.IsError, text)
	}
	// An image is image content.
	png := []byte("\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR\x00\x00\x00\x01\x00\x00\x00\x01\x08\x06\x00\x00\x00\x1f\x15\xc4\x89\x00\x00\x00\rIDATx\x9cc\xf8\xff\xff?\x00\x05\xfe\x02\xfe\xa7\x35\x81\x84\x00\x00\x00\x00IEND\xaeB`\x82")
	if err := os.WriteFile(filepath.Join(dir, "dot.png"), png, 0o644); err != nil {
		t.Fatal(err)
	}
	_, r = call(t, cs, "read_file", map[string]any{"path": "dot.png"})
	var img *mcp.ImageContent
	for _, c := range r.Content {
		if ic, ok := c.(*mcp.ImageContent); ok {
			img = ic
		}
	}
	if r.IsError || img == nil || img.MIMEType != "image/png" || len(img.Data) == 0 {
		t.Errorf("an image: error %v, content %+v", r.IsError, r.Content)
	}
	// A write: the change is structured content too.
	_, r = call(t, cs, "write_file", map[string]any{"path": "new.txt", "content": "x\n"})
	if !r.IsError {
		t.Errorf("write_file ran in default mode with nobody to ask")
	}
	// Nobody to ask: refused with print mode's sentence.
	text, r = call(t, cs, "bash", map[string]any{"command": "echo hi"})
	if !r.IsError || !strings.Contains(text, "nobody is here to give it") || !strings.Contains(text, "--permission-mode yolo") {
		t.Errorf("bash in default mode: %v %q", r.IsError, text)
	}
}

func names(ts []*mcp.Tool) []string {
	var out []string
	for _, t := range ts {
		out = append(out, t.Name)
	}
	return out
}

func TestRulesAndMode(t *testing.T) {
	dir := project(t)
	s := newServer(t, app.Options{Cwd: dir, PermissionMode: "yolo", Deny: []string{"bash:rm( .*)?"}})
	cs := connect(t, s, nil)
	text, r := call(t, cs, "bash", map[string]any{"command": "echo served"})
	if r.IsError || !strings.Contains(text, "served") {
		t.Errorf("bash in yolo: %v %q", r.IsError, text)
	}
	text, r = call(t, cs, "bash", map[string]any{"command": "rm notes.txt"})
	if !r.IsError || !strings.Contains(text, "was refused") {
		t.Errorf("a denied bash: %v %q", r.IsError, text)
	}
	if _, err := os.Stat(filepath.Join(dir, "notes.txt")); err != nil {
		t.Errorf("the denied command ran: %v", err)
	}
	_, r = call(t, cs, "write_file", map[string]any{"path": "new.txt", "content": "x\n"})
	if r.IsError {
		t.Fatal("write_file in yolo failed")
	}
	var sc map[string]any
	b, _ := json.Marshal(r.StructuredContent)
	_ = json.Unmarshal(b, &sc)
	if !strings.Contains(string(b), filepath.Join(dir, "new.txt")) {
		t.Errorf("structured content of a write: %s", b)
	}
}

// A client that can be asked is asked, through elicitation: as an input request of the
// call (protocol 2026-07-28), or, for a client of an older protocol, by the server in
// the middle of the call.
func TestElicitation(t *testing.T) {
	for _, version := range []string{"", "2025-06-18"} {
		t.Run("protocol "+version, func(t *testing.T) {
			dir := project(t)
			s := newServer(t, app.Options{Cwd: dir})
			var asked []string
			answer := "Allow once"
			cs := connectAt(t, s, &mcp.ClientOptions{ElicitationHandler: func(_ context.Context, req *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
				asked = append(asked, req.Params.Message)
				if answer == "" {
					return &mcp.ElicitResult{Action: "decline"}, nil
				}
				return &mcp.ElicitResult{Action: "accept", Content: map[string]any{"decision": answer}}, nil
			}}, version)
			text, r := call(t, cs, "bash", map[string]any{"command": "echo asked-and-allowed"})
			if r.IsError || !strings.Contains(text, "asked-and-allowed") || len(asked) != 1 || !strings.Contains(asked[0], "echo asked-and-allowed") {
				t.Errorf("allowed: %v %q, asked %q", r.IsError, text, asked)
			}
			answer = ""
			text, r = call(t, cs, "bash", map[string]any{"command": "echo declined"})
			if !r.IsError || !strings.Contains(text, "rejected by the user") || len(asked) != 2 {
				t.Errorf("declined: %v %q", r.IsError, text)
			}
			// "Allow always" holds for the rest of the connection.
			answer = "Allow always (this session)"
			write(t, dir, "a.txt", "a\n")
			if _, r = call(t, cs, "edit_file", map[string]any{"path": "a.txt", "edits": []any{map[string]any{"old": "a", "new": "b"}}}); r.IsError {
				t.Errorf("edit allowed always: %v", r.Content[0].(*mcp.TextContent).Text)
			}
			n := len(asked)
			if _, r = call(t, cs, "edit_file", map[string]any{"path": "a.txt", "edits": []any{map[string]any{"old": "b", "new": "c"}}}); r.IsError || len(asked) != n {
				t.Errorf("the second edit: error %v, asked %d more times", r.IsError, len(asked)-n)
			}
		})
	}
}

// Kernels belong to the session: a variable lives to the next call of the same
// connection, not to another's.
func TestEvalStateIsTheConnections(t *testing.T) {
	testenv.Need(t, "node")
	dir := project(t)
	s := newServer(t, app.Options{Cwd: dir, PermissionMode: "yolo"})
	addr := serveHTTP(t, s, HTTPOptions{Token: "sekrit"})
	url := "http://" + addr + Path
	one, two := httpClient(t, url, "sekrit"), httpClient(t, url, "sekrit")
	cell := func(cs *mcp.ClientSession, code string) string {
		text, _ := call(t, cs, "eval", map[string]any{"language": "javascript", "code": code, "description": "keep a number between calls here"})
		return text
	}
	cell(one, "var kept = 41")
	if got := cell(one, "kept + 1"); !strings.Contains(got, "42") {
		t.Errorf("the same connection: %q", got)
	}
	if got := cell(two, "typeof kept"); !strings.Contains(got, "undefined") {
		t.Errorf("another connection sees the first's state: %q", got)
	}
	// No token, a wrong one: refused.
	for _, tok := range []string{"", "wrong"} {
		req, _ := http.NewRequest(http.MethodPost, url, strings.NewReader(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{}}`))
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Accept", "application/json, text/event-stream")
		if tok != "" {
			req.Header.Set("Authorization", "Bearer "+tok)
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		_ = resp.Body.Close()
		if resp.StatusCode != http.StatusUnauthorized {
			t.Errorf("token %q: status %d", tok, resp.StatusCode)
		}
	}
}

type bearer struct {
	token string
	next  http.RoundTripper
}

func (b bearer) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	r.Header.Set("Authorization", "Bearer "+b.token)
	return b.next.RoundTrip(r)
}

func httpClient(t *testing.T, url, token string) *mcp.ClientSession {
	t.Helper()
	tr := &http.Transport{}
	c := mcp.NewClient(&mcp.Implementation{Name: "test", Version: "1"}, nil)
	cs, err := c.Connect(context.Background(), &mcp.StreamableClientTransport{Endpoint: url,
		HTTPClient: &http.Client{Transport: bearer{token, tr}}}, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		_ = cs.Close()
		tr.CloseIdleConnections()
	})
	return cs
}

// serveHTTP serves s over HTTP on a loopback port until the test ends, and returns
// the address.
func serveHTTP(t *testing.T, s *Server, o HTTPOptions) string {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- s.ServeHTTP(ctx, l, o) }()
	t.Cleanup(func() {
		cancel()
		if err := testenv.Recv(t, done, testenv.Bound, "ServeHTTP to end once cancelled"); err != nil {
			t.Error(err)
		}
	})
	return l.Addr().String()
}

// A client that hangs up while its bash call runs leaves nothing running.
func TestHangUpMidCall(t *testing.T) {
	dir := project(t)
	s := newServer(t, app.Options{Cwd: dir, PermissionMode: "yolo"})
	addr := serveHTTP(t, s, HTTPOptions{Token: "t"})
	send := func(conn net.Conn, session, body string) (*http.Response, error) {
		req, _ := http.NewRequest(http.MethodPost, "http://"+addr+Path, strings.NewReader(body))
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Accept", "application/json, text/event-stream")
		req.Header.Set("Authorization", "Bearer t")
		req.Header.Set("Mcp-Protocol-Version", "2025-06-18")
		if session != "" {
			req.Header.Set("Mcp-Session-Id", session)
		}
		if err := req.Write(conn); err != nil {
			return nil, err
		}
		return http.ReadResponse(bufio.NewReader(conn), req)
	}
	post := func(conn net.Conn, session, body string) *http.Response {
		resp, err := send(conn, session, body)
		if err != nil {
			t.Fatal(err)
		}
		return resp
	}
	dial := func() net.Conn {
		c, err := net.Dial("tcp", addr)
		if err != nil {
			t.Fatal(err)
		}
		return c
	}
	c1 := dial()
	resp := post(c1, "", `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"raw","version":"1"}}}`)
	session := resp.Header.Get("Mcp-Session-Id")
	_, _ = io.Copy(io.Discard, io.LimitReader(resp.Body, 1<<16))
	c1.Close()
	if session == "" {
		t.Fatalf("no session id: %v", resp.Header)
	}
	c2 := dial()
	r2 := post(c2, session, `{"jsonrpc":"2.0","method":"notifications/initialized"}`)
	_ = r2.Body.Close()
	c2.Close()

	// The sleep's own command line holds the marker (a fraction no other has), so an
	// orphaned sleep would be seen too.
	marker := fmt.Sprintf("300.%d", time.Now().UnixNano())
	c3 := dial()
	req := fmt.Sprintf(`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"bash","arguments":{"command":"sleep %s; echo slept"}}}`, marker)
	answered := make(chan struct{})
	go func() {
		defer close(answered)
		// The answer never comes: the client hangs up first.
		if r, err := send(c3, session, req); err == nil {
			_, _ = io.Copy(io.Discard, r.Body)
		}
	}()
	proctest.WaitUntil(t, "the command to run", func() bool { return proctest.Running(marker) })
	c3.Close()
	testenv.Recv(t, answered, testenv.Bound, "the hung-up request to end")
	proctest.WaitUntil(t, "the command to be killed after the hang-up", func() bool { return !proctest.Running(marker) })
}

// Closing the server ends what its sessions started.
func TestCloseEndsTheSessionsProcesses(t *testing.T) {
	dir := project(t)
	s, err := New(Options{App: app.Options{Cwd: dir, PermissionMode: "yolo"}, Version: "test"})
	if err != nil {
		t.Fatal(err)
	}
	ct, st := mcp.NewInMemoryTransports()
	done := make(chan error, 1)
	go func() { done <- s.Run(context.Background(), st) }()
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "test", Version: "1"}, nil).Connect(context.Background(), ct, nil)
	if err != nil {
		t.Fatal(err)
	}
	marker := fmt.Sprintf("300.%d", time.Now().UnixNano())
	text, r := call(t, cs, "bash", map[string]any{"command": "sleep " + marker + "; echo slept", "run_in_background": true})
	if r.IsError {
		t.Fatalf("a background command: %q", text)
	}
	proctest.WaitUntil(t, "the background command", func() bool { return proctest.Running(marker) })
	_ = cs.Close() // the client goes: its session, and the command, go with it
	if err := testenv.Recv(t, done, testenv.Bound, "the server's run to end once its client went"); err != nil {
		t.Error(err)
	}
	if proctest.Running(marker) {
		t.Error("the background command outlived the session")
	}
}

// An HTTP session idle past the timeout is closed with what it started.
func TestIdleHTTPSessionIsClosed(t *testing.T) {
	dir := project(t)
	s := newServer(t, app.Options{Cwd: dir, PermissionMode: "yolo"})
	addr := serveHTTP(t, s, HTTPOptions{Token: "t", IdleTimeout: 300 * time.Millisecond})
	cs := httpClient(t, "http://"+addr+Path, "t")
	marker := fmt.Sprintf("300.%d", time.Now().UnixNano())
	if text, r := call(t, cs, "bash", map[string]any{"command": "sleep " + marker + "; echo slept", "run_in_background": true}); r.IsError {
		t.Fatalf("a background command: %q", text)
	}
	proctest.WaitUntil(t, "the background command", func() bool { return proctest.Running(marker) })
	proctest.WaitUntil(t, "the idle session's command to end", func() bool { return !proctest.Running(marker) })
}
