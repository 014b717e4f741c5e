package mcpserve

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"strings"
	"testing"
	"time"

	"github.com/gantry-dev/gantry/internal/app"
	"github.com/gantry-dev/gantry/internal/testenv"
)

// wire is a client writing raw lines to RunStdio over pipes and reading its answers.
type wire struct {
	in   *io.PipeWriter
	msgs chan map[string]any
	bad  chan string // stdout lines that are not a JSON object
}

// startWire runs a new server on pipes, as gantry mcp runs on stdin and stdout, and
// initializes the session. Closing its input at cleanup must end the run cleanly.
func startWire(t testing.TB, dir string) *wire {
	t.Helper()
	s, err := New(Options{App: app.Options{Cwd: dir}, Version: "test"})
	if err != nil {
		t.Fatal(err)
	}
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	w := &wire{in: inW, msgs: make(chan map[string]any, 1000), bad: make(chan string, 1000)}
	ran := make(chan error, 1)
	go func() {
		ran <- s.RunStdio(context.Background(), inR, outW)
		_ = outW.Close()
	}()
	read := make(chan struct{})
	go func() {
		defer close(read)
		sc := bufio.NewScanner(outR)
		sc.Buffer(make([]byte, 64<<10), 8<<20)
		for sc.Scan() {
			var m map[string]any
			if json.Unmarshal(sc.Bytes(), &m) != nil || m["jsonrpc"] != "2.0" {
				w.bad <- sc.Text()
				continue
			}
			w.msgs <- m
		}
	}()
	t.Cleanup(func() {
		_ = inW.Close()
		select {
		case err := <-ran:
			if err != nil {
				t.Errorf("the run ended with %v once its input closed", err)
			}
		case <-time.After(30 * time.Second):
			t.Errorf("the run did not end within 30s of its input closing")
			_ = outR.Close()
		}
		testenv.Recv(t, read, testenv.Bound, "the reader of the run's output to end")
	})
	w.send(t, `{"jsonrpc":"2.0","id":"init","method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"wire","version":"1"}}}`)
	if m := w.until(t, `"init"`); m["result"] == nil {
		t.Fatalf("initialize: %v", m)
	}
	w.send(t, `{"jsonrpc":"2.0","method":"notifications/initialized"}`)
	return w
}

func (w *wire) send(t testing.TB, line string) {
	t.Helper()
	if _, err := io.WriteString(w.in, line+"\n"); err != nil {
		t.Fatalf("writing %q: %v", line, err)
	}
}

// until reads messages until the one with the given id (its JSON) and returns it.
func (w *wire) until(t testing.TB, id string) map[string]any {
	t.Helper()
	m, _ := w.collect(t, id)
	return m
}

// collect reads messages until the one with the given id and returns it with the
// ones before it.
func (w *wire) collect(t testing.TB, id string) (map[string]any, []map[string]any) {
	t.Helper()
	var before []map[string]any
	timeout := time.After(30 * time.Second)
	for {
		select {
		case m := <-w.msgs:
			b, _ := json.Marshal(m["id"])
			if string(b) == id {
				return m, before
			}
			before = append(before, m)
		case l := <-w.bad:
			t.Fatalf("gantry mcp wrote a line that is not a JSON-RPC message: %q", l)
		case <-timeout:
			t.Fatalf("no answer to id %s within 30s (read before: %v)", id, before)
		}
	}
}

// toolsList asks for the tools with the given id and checks they come.
func (w *wire) toolsList(t testing.TB, id string) []map[string]any {
	t.Helper()
	w.send(t, fmt.Sprintf(`{"jsonrpc":"2.0","id":%s,"method":"tools/list"}`, id))
	m, before := w.collect(t, id)
	res, _ := m["result"].(map[string]any)
	if tools, _ := res["tools"].([]any); len(tools) == 0 {
		t.Fatalf("tools/list after a bad line: %v", m)
	}
	return before
}

func errCode(m map[string]any) (int, string) {
	e, _ := m["error"].(map[string]any)
	c, _ := e["code"].(float64)
	id, _ := json.Marshal(m["id"])
	return int(c), string(id)
}

// Every malformed line is answered with the error JSON-RPC 2.0 gives it, and the
// next request is answered as usual.
func TestMalformedLines(t *testing.T) {
	w := startWire(t, project(t))
	const parse, invalid, none = -32700, -32600, 0
	cases := []struct {
		line string
		code int
		id   string // the id answered to
	}{
		// Not JSON: parse error, id null.
		{`{"jsonrpc":"2.0","id":1,`, parse, "null"},
		{`{"jsonrpc":"2.0","id":2,"method":"tools/list"`, parse, "null"},
		{`{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"read_file","arguments":{"path":"notes.txt"}`, parse, "null"},
		{`not json`, parse, "null"},
		{`{`, parse, "null"},
		{`}`, parse, "null"},
		{`{"jsonrpc":"2.0","id":4,"method":"tools/list"}}`, parse, "null"},
		{`{"jsonrpc":"2.0","id":5,"method":"tools/list"} {"jsonrpc":"2.0","id":6,"method":"tools/list"}`, parse, "null"},
		{`{'jsonrpc':'2.0','id':7,'method':'tools/list'}`, parse, "null"},
		{`{"jsonrpc":"2.0","id":8,"method":"tools/list",}`, parse, "null"},
		{`{"jsonrpc":"2.0","id":NaN,"method":"tools/list"}`, parse, "null"},
		{"{\"jsonrpc\":\"2.0\",\"id\":9,\"method\":\"tools/\xff\xfelist\"}", parse, "null"},
		{"\xc3\x28", parse, "null"},
		{"{\"jsonrpc\":\"2.0\",\"id\":10,\"method\":\"tools/list\",\"params\":{\"x\":\"\x00\"}}", parse, "null"},
		{strings.Repeat("[", 20000) + strings.Repeat("]", 20000), parse, "null"},
		// JSON, but not a request: invalid request.
		{`[]`, invalid, "null"},
		{`[{"jsonrpc":"2.0","id":11,"method":"tools/list"},{"jsonrpc":"2.0","id":12,"method":"tools/list"}]`, invalid, "null"},
		{`[{"jsonrpc":"2.0","id":13,"method":"tools/list"}]`, invalid, "null"},
		{`"tools/list"`, invalid, "null"},
		{`42`, invalid, "null"},
		{`null`, invalid, "null"},
		{`true`, invalid, "null"},
		{`{}`, invalid, "null"},
		{`{"jsonrpc":"1.0","id":14,"method":"tools/list"}`, invalid, "14"},
		{`{"jsonrpc":2.0,"id":15,"method":"tools/list"}`, invalid, "15"},
		{`{"id":16,"method":"tools/list"}`, invalid, "16"},
		{`{"JSONRPC":"2.0","id":17,"method":"tools/list"}`, invalid, "17"},
		{`{"jsonrpc":"2.0","id":true,"method":"tools/list"}`, invalid, "null"},
		{`{"jsonrpc":"2.0","id":false,"method":"tools/list"}`, invalid, "null"},
		{`{"jsonrpc":"2.0","id":{"n":1},"method":"tools/list"}`, invalid, "null"},
		{`{"jsonrpc":"2.0","id":[1],"method":"tools/list"}`, invalid, "null"},
		{`{"jsonrpc":"2.0","id":1.5,"method":"tools/list"}`, invalid, "null"},
		{`{"jsonrpc":"2.0","id":1e3,"method":"tools/list"}`, invalid, "null"},
		{`{"jsonrpc":"2.0","id":123456789012345678901234567890,"method":"tools/list"}`, invalid, "null"},
		{`{"jsonrpc":"2.0","id":null,"method":"tools/list"}`, invalid, "null"},
		{`{"jsonrpc":"2.0","id":18,"method":42}`, invalid, "18"},
		{`{"jsonrpc":"2.0","id":19,"method":null}`, invalid, "19"},
		{`{"jsonrpc":"2.0","id":20,"method":{"name":"tools/list"}}`, invalid, "20"},
		{`{"jsonrpc":"2.0","id":21,"method":"tools/list","params":"all"}`, invalid, "21"},
		{`{"jsonrpc":"2.0","id":22,"method":"tools/list","params":[1,2]}`, invalid, "22"},
		{`{"jsonrpc":"2.0","method":"notifications/cancelled","params":7}`, invalid, "null"},
		{`{"jsonrpc":"2.0","id":23}`, invalid, "23"},
		{`{"jsonrpc":"2.0","id":24,"method":"tools/list","result":{}}`, invalid, "24"},
		{`{"jsonrpc":"2.0","id":25,"result":{},"error":{"code":1,"message":"x"}}`, invalid, "25"},
		{`{"jsonrpc":"2.0","id":26,"error":"boom"}`, invalid, "26"},
		{`{"jsonrpc":"2.0","id":27,"error":{"code":"x","message":"m"}}`, invalid, "27"},
		{`{"jsonrpc":"2.0","id":28,"error":{"code":1.5,"message":"m"}}`, invalid, "28"},
		{`{"jsonrpc":"2.0","result":{}}`, invalid, "null"},
		{`{"jsonrpc":"2.0","id":null,"result":{}}`, invalid, "null"},
		{`{"jsonrpc":"2.0","id":29,"method":"tools/list","params":` + strings.Repeat(`{"a":`, 1500) + `1` + strings.Repeat(`}`, 1500) + `}`, invalid, "29"},
		// Nothing to answer: blank lines, notifications (even with bad params) and
		// responses to no request of the server's.
		{``, none, ""},
		{`   `, none, ""},
		{"\t \r", none, ""},
		{`{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":{"x":[]},"reason":5}}`, none, ""},
		{`{"jsonrpc":"2.0","method":"notifications/initialized","params":{"junk":[null,{"a":[[[]]]}]}}`, none, ""},
		{`{"jsonrpc":"2.0","method":"notifications/roots/list_changed","params":{"x":1e999999}}`, none, ""},
		{`{"jsonrpc":"2.0","method":"no/such/notification"}`, none, ""},
		{`{"jsonrpc":"2.0","id":"never-asked","result":{}}`, none, ""},
		{`{"jsonrpc":"2.0","id":31,"error":{"code":-1,"message":"no"}}`, none, ""},
	}
	if len(cases) < 40 {
		t.Fatalf("only %d cases", len(cases))
	}
	for i, c := range cases {
		w.send(t, c.line)
		before := w.toolsList(t, fmt.Sprintf(`"check-%d"`, i))
		switch {
		case c.code == none && len(before) != 0:
			t.Errorf("%.80q: answered %v", c.line, before)
		case c.code == none:
		case len(before) != 1:
			t.Errorf("%.80q: %d answers %v, want one", c.line, len(before), before)
		default:
			code, id := errCode(before[0])
			e, _ := before[0]["error"].(map[string]any)
			if code != c.code || id != c.id {
				t.Errorf("%.80q: answered %d to id %s (%v), want %d to id %s", c.line, code, id, e, c.code, c.id)
			}
		}
	}
}

// Requests the SDK answers itself (an unknown method, a bad tool call) keep the
// session: each is answered with its error and the next request as usual.
func TestRequestsTheSDKRefuses(t *testing.T) {
	w := startWire(t, project(t))
	for i, line := range []string{
		`{"jsonrpc":"2.0","id":"a","method":""}`,
		`{"jsonrpc":"2.0","id":"b","method":"no/such/method"}`,
		`{"jsonrpc":"2.0","id":"c","method":"tools/call","params":{"name":"no_such_tool"}}`,
		`{"jsonrpc":"2.0","id":"d","method":"tools/call","params":{"name":7}}`,
		`{"jsonrpc":"2.0","id":"e","method":"tools/call","params":{"name":"read_file","arguments":"notes.txt"}}`,
		`{"jsonrpc":"2.0","id":"f","method":"initialize","params":{"protocolVersion":5}}`,
	} {
		w.send(t, line)
		id := `"` + string(rune('a'+i)) + `"`
		m := w.until(t, id)
		if m["error"] == nil && m["result"] == nil {
			t.Errorf("%s: %v", line, m)
		}
		w.toolsList(t, fmt.Sprintf(`"next-%d"`, i))
	}
}

// A line longer than MaxLine is answered with Invalid Request to its id, and the
// line after it is read as usual.
func TestHugeLine(t *testing.T) {
	w := startWire(t, project(t))
	huge := `{"jsonrpc":"2.0","id":77,"method":"tools/call","params":{"name":"write_file","arguments":{"path":"big.txt","content":"` +
		strings.Repeat("x", MaxLine) + `"}}}`
	w.send(t, huge)
	before := w.toolsList(t, `"after-huge"`)
	if len(before) != 1 {
		t.Fatalf("answers before tools/list: %v", before)
	}
	if code, id := errCode(before[0]); code != -32600 || id != "77" {
		t.Errorf("the huge line was answered %v", before[0])
	}
}

// Bad lines and requests written at once, while the SDK answers the requests on its
// own goroutines: every line of stdout is one whole message, and each is answered.
func TestAnswersDoNotInterleave(t *testing.T) {
	w := startWire(t, project(t))
	const n = 100
	var b strings.Builder
	for i := 0; i < n; i++ {
		fmt.Fprintf(&b, "[%d]\n{\"jsonrpc\":\"2.0\",\"id\":%d,\"method\":\"tools/list\"}\n", i, i)
	}
	if _, err := io.WriteString(w.in, b.String()); err != nil {
		t.Fatal(err)
	}
	errors, lists := 0, 0
	for errors+lists < 2*n {
		select {
		case m := <-w.msgs:
			if code, _ := errCode(m); code == -32600 {
				errors++
			} else if m["result"] != nil {
				lists++
			} else {
				t.Fatalf("unexpected %v", m)
			}
		case l := <-w.bad:
			t.Fatalf("a line that is not one message: %.200q", l)
		case <-time.After(30 * time.Second):
			t.Fatalf("%d errors and %d lists within 30s", errors, lists)
		}
	}
}

// FuzzMCPInput: whatever a client writes, gantry mcp does not panic or stop reading,
// writes only JSON-RPC messages, and answers the request after it.
func FuzzMCPInput(f *testing.F) {
	for _, seed := range []string{
		`{"jsonrpc":"2.0","id":1,`,
		`{"jsonrpc":"2.0","id":true,"method":"tools/list"}`,
		`[]`,
		`[{"jsonrpc":"2.0","id":1,"method":"tools/list"},{"jsonrpc":"2.0","method":"notifications/initialized"}]`,
		`{"jsonrpc":"1.0","id":1,"method":"tools/list"}`,
		`{"jsonrpc":"2.0","id":"x","method":"tools/call","params":{"name":"read_file","arguments":{"path":"notes.txt"}}}`,
		`{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":"after"}}`,
		"\xff\n\n{\"jsonrpc\":\"2.0\"",
		`{"jsonrpc":"2.0","id":2,"result":{}}` + "\n" + `{"jsonrpc":"2.0","id":3,"error":{"code":1}}`,
	} {
		f.Add(seed)
	}
	dir := project(f)
	f.Fuzz(func(t *testing.T, in string) {
		w := startWire(t, dir)
		w.send(t, in)
		w.toolsList(t, `"after-the-fuzz-input-7c1e"`)
	})
}
